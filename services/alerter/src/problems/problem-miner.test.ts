import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus } from '../../../../shared/adapters/bus/index.ts';
import { createDuckDbStore, type Store } from '../../../../shared/adapters/store/index.ts';
import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { listProblemEvents, listProblems } from '../../../../shared/engines/problems/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createTestUnit } from '../../../../test/helpers/unit-factory.ts';
import { createProblemMiner } from './problem-miner.ts';

const log = createSilentLogger();

function scoreOf(unit: Unit, check: string, passed: boolean, explanation = ''): Score {
  return {
    schema_version: 1, unit_id: unit.unit_id, unit_kind: 'trace', check, check_version: 'c1', status: 'ok', value: passed ? 1 : 0, passed, explanation, method: 'deterministic',
    error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: unit.agent_name, agent_version: unit.agent_version,
    environment: unit.environment, service: unit.service, unit_end_time_ms: unit.end_time_ms, created_at_ms: unit.end_time_ms + 1, ...(unit.project ? { project: unit.project } : {}),
  };
}

function outageUnit(i: number, project?: string): Unit {
  return createTestUnit(i, {
    end_time_ms: 1_000 + i, agent_name: 'support', ...(project ? { project } : {}),
    tool_calls: [{ id: 'c1', name: 'lookup_order', arguments: '{}', result: null, error: `HTTP 503 upstream order-db-${i} unavailable` }],
  });
}

async function waitFor(fn: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the problems stage', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(store: Store) {
    const bus = createInMemoryBus({ log });
    await bus.ensureTopics(['scores']);
    const miner = createProblemMiner({ scoresTopic: 'scores', groupId: 'problems', tickMs: 60_000, settleMs: 0 }, { bus, store, log, now: () => 10_000 });
    await miner.start();
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(async () => {
      await producer.shutdown();
      await miner.shutdown();
      await bus.close();
    });
    const publish = (scores: Score[]) => producer.send('scores', scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })));
    return { miner, publish };
  }

  it('groups failed units from the scores and their stored steps into problems per project, and keeps them across a restart', async () => {
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const failedUnits = Array.from({ length: 6 }, (_, i) => outageUnit(i));
    const other = outageUnit(50, 'acme');
    const healthy = Array.from({ length: 4 }, (_, i) => createTestUnit(100 + i, { agent_name: 'support', end_time_ms: 2_000 + i }));
    await store.writeScoredUnits([...failedUnits, other, ...healthy].map((unit) => ({ unit, scores: [] })));

    const first = await setup(store);
    await first.publish([...failedUnits.slice(0, 4), other].flatMap((u) => [scoreOf(u, 'task_completed', false, 'No order found.'), scoreOf(u, 'tone', true)]));
    await first.publish(healthy.map((u) => scoreOf(u, 'task_completed', true)));
    await waitFor(async () => {
      await first.miner.flush();
      return (await listProblems(store, 'default')).some((p) => p.count === 4);
    }, 'four units in a problem');
    const [problem] = await listProblems(store, 'default');
    expect(problem).toMatchObject({ title: 'support: lookup_order fails (unavailable)', cause: 'tool_error', count: 4, checks: { 'task_completed:fail': 4 }, state: 'new', first_seen_ms: 1_000, last_seen_ms: 1_003 });
    expect(problem.templates.map((t) => t.template)).toEqual(['HTTP <num> upstream <id> unavailable']);
    expect((await listProblems(store, 'acme')).map((p) => [p.id, p.count])).toEqual([[problem.id, 1]]);
    expect((await listProblemEvents(store, 'default', 0)).map((e) => e.event.kind)).toEqual(['problem_new']);
    await cleanups.pop()!();

    const second = await setup(store);
    await second.publish(failedUnits.slice(3).flatMap((u) => [scoreOf(u, 'task_completed', false)]));
    await waitFor(async () => {
      await second.miner.flush();
      return (await listProblems(store, 'default'))[0].count === 6;
    }, 'the replayed and new units counted');
    expect((await listProblems(store, 'default')).map((p) => [p.id, p.count, p.sample.length])).toEqual([[problem.id, 6, 6]]);
    expect((await listProblemEvents(store, 'default', 0)).map((e) => e.event.kind)).toEqual(['problem_new']);
  });

  it('counts a unit whose checks all passed but whose run recorded an error: a hand-off that never came back', async () => {
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const stuck = Array.from({ length: 3 }, (_, i) =>
      createTestUnit(i, {
        end_time_ms: 1_000 + i, agent_name: 'support',
        steps: [{ type: 'handoff', agent: 'billing', from: 'support', start_ms: 1 }],
        errors: [{ message: `billing did not hand back within ${30 + i}s` }],
      }),
    );
    const healthy = createTestUnit(9, { agent_name: 'support', end_time_ms: 2_000 });
    await store.writeScoredUnits([...stuck, healthy].map((unit) => ({ unit, scores: [] })));
    const { miner, publish } = await setup(store);
    await publish([...stuck, healthy].map((u) => scoreOf(u, 'loop_guard', true)));
    await waitFor(async () => {
      await miner.flush();
      return (await listProblems(store, 'default')).length === 1;
    }, 'one problem');
    expect((await listProblems(store, 'default')).map((p) => [p.title, p.cause, p.count, p.point])).toEqual([['support: hand-off support > billing never returned', 'handoff_unreturned', 3, { agent: 'support', step: 0 }]]);
  });
});
