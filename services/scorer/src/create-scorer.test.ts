import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus, type Bus, type BusMessage } from '../../../shared/adapters/bus/index.ts';
import { PermanentError, RetriableError } from '../../../shared/runtime/errors/index.ts';
import type { JudgeClient, RunnableCheck } from '../../../shared/engines/checks/contract.ts';
import { createCheckRegistry } from '../../../shared/engines/checks/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { createScorer } from './create-scorer.ts';

const log = createSilentLogger();

function unit(i: number): Unit {
  const id = i.toString(16).padStart(32, '0');
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'a', agent_version: '1', service: 's', environment: null,
    conversation_id: null, model: 'm', model_input: [], model_output: `answer ${i}`, message_history: [{ role: 'user', content: `q ${i}` }, { role: 'assistant', content: `answer ${i}` }],
    tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 0, output_tokens: 0 }, errors: [], truncated: false, span_count: 1, start_time_ms: 0, end_time_ms: 1, assembled_at_ms: 2,
  };
}

/** Holds every call until `quorum` calls are in flight at once (or `giveUpMs` passed), then answers pass. */
function quorumJudge(quorum: number, giveUpMs = 3_000): JudgeClient & { maxInFlight(): number; calls(): number } {
  let inFlight = 0;
  let max = 0;
  let calls = 0;
  let release: Array<() => void> = [];
  return {
    async complete() {
      calls += 1;
      inFlight += 1;
      max = Math.max(max, inFlight);
      if (inFlight >= quorum) {
        for (const r of release) r();
        release = [];
      } else {
        await new Promise<void>((resolve) => {
          release.push(resolve);
          setTimeout(resolve, giveUpMs);
        });
      }
      inFlight -= 1;
      return { text: '[[True]] ((fine))', model: 'double', inputTokens: 1, outputTokens: 1 };
    },
    maxInFlight: () => max,
    calls: () => calls,
  };
}

async function waitUntil(fn: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('scorer', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  it('scores several units at once, so a slow judge does not serialize them', async () => {
    const bus = createInMemoryBus({ log });
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const judge = quorumJudge(4);
    const registry = createCheckRegistry();
    const scorer = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: null, maxConcurrentUnits: 8 }, { bus, store, log, nowMs: Date.now, checks: [registry.get('task_completed')!], judge });
    await scorer.start();
    cleanups.push(() => scorer.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('units', Array.from({ length: 8 }, (_, i) => ({ key: unit(i).unit_id, value: JSON.stringify(unit(i)) })));
    await waitUntil(async () => (await store.queryScores({ check: 'task_completed' })).length === 8, 10_000, '8 scores');
    expect(judge.maxInFlight()).toBeGreaterThanOrEqual(4);
    const scores = await store.queryScores({ check: 'task_completed' });
    expect(scores.every((s) => s.status === 'ok' && s.passed === true)).toBe(true);
  });

  it('at start, scores every stored unit that has no score (a crash between the two writes), and no other', async () => {
    const bus = createInMemoryBus({ log });
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const registry = createCheckRegistry();
    const checks = [registry.get('function_result_present')!, registry.get('task_completed')!];
    // 600 units were stored before a crash (more than one page of the sweep); unit 0 has its scores.
    await store.writeUnits(Array.from({ length: 600 }, (_, i) => unit(i)));
    const judge = quorumJudge(1);
    const first = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: null }, { bus, store, log, nowMs: Date.now, checks, judge });
    await first.start();
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('units', [{ key: unit(0).unit_id, value: JSON.stringify(unit(0)) }]);
    await waitUntil(async () => (await store.queryScores({ unitId: unit(0).unit_id })).length === 2, 5_000, 'unit 0 scored');
    await first.shutdown();
    expect(await store.unscoredUnitIds!('', 1000)).toHaveLength(599);
    const callsBefore = judge.calls();

    const second = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: null, sweepUnscored: true }, { bus, store, log, nowMs: Date.now, checks, judge });
    await second.start();
    cleanups.push(() => second.shutdown());
    await waitUntil(async () => (await store.unscoredUnitIds!('', 1000)).length === 0, 20_000, 'no unit without scores');
    const scores = await store.queryScores({ limit: 10_000 });
    expect(scores).toHaveLength(1200);
    const perUnit = new Map<string, string[]>();
    for (const sc of scores) perUnit.set(sc.unit_id, [...(perUnit.get(sc.unit_id) ?? []), sc.check].sort());
    expect(perUnit.size).toBe(600);
    expect([...perUnit.values()].every((c) => c.join() === 'function_result_present,task_completed')).toBe(true);
    // Unit 0 was not scored again: one judge call per swept unit.
    expect(judge.calls() - callsBefore).toBe(599);
  });

  it('after a stop with units in flight, a restarted scorer in the same group scores every unit', async () => {
    const bus = createInMemoryBus({ log });
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const registry = createCheckRegistry();
    const checks = [registry.get('task_completed')!];
    const producer = bus.createProducer();
    await producer.start();
    // A judge that never reaches its quorum: each call takes 300 ms.
    const slow = quorumJudge(100, 300);
    const first = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: null, maxConcurrentUnits: 2 }, { bus, store, log, nowMs: Date.now, checks, judge: slow });
    await first.start();
    await producer.send('units', Array.from({ length: 6 }, (_, i) => ({ key: unit(i).unit_id, value: JSON.stringify(unit(i)) })));
    await waitUntil(() => slow.calls() >= 1, 5_000, 'the first judge call');
    await first.shutdown();
    const scoredByFirst = (await store.queryScores({ check: 'task_completed' })).length;
    expect(scoredByFirst).toBeLessThan(6);

    const second = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: null }, { bus, store, log, nowMs: Date.now, checks, judge: quorumJudge(1) });
    await second.start();
    cleanups.push(() => second.shutdown());
    await waitUntil(async () => (await store.queryScores({ check: 'task_completed' })).length === 6, 10_000, 'all 6 units scored');
    const ids = (await store.queryScores({ check: 'task_completed' })).map((s) => s.unit_id).sort();
    expect(ids).toEqual(Array.from({ length: 6 }, (_, i) => unit(i).unit_id).sort());
  });

  it('never commits a unit that is neither stored nor dead-lettered, even while the dead-letter send fails', async () => {
    const inner = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    let dlqDown = true;
    const bus: Bus = {
      ...inner,
      createProducer() {
        const p = inner.createProducer();
        return { ...p, send: (topic, messages) => (dlqDown && topic.endsWith('.dlq') ? Promise.reject(new RetriableError('dlq down')) : p.send(topic, messages)) };
      },
    };
    const real = createDuckDbStore({ path: ':memory:', log });
    await real.start();
    cleanups.push(() => real.shutdown());
    const poison = unit(0).unit_id;
    const store: Store = { ...real, writeScoredUnits: (items) => (items.some((i) => i.unit.unit_id === poison) ? Promise.reject(new PermanentError('invalid unit')) : real.writeScoredUnits(items)) };
    const checks = [createCheckRegistry().get('function_result_present')!];
    const config = { unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: 'none' };
    const deps = { bus, store, log, nowMs: Date.now, checks, judge: null };
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('units', [0, 1, 2].map((i) => ({ key: unit(i).unit_id, value: JSON.stringify(unit(i)) })));

    const first = createScorer(config, deps);
    await first.start();
    await waitUntil(async () => (await real.queryScores({ check: 'function_result_present' })).length === 2, 10_000, 'units 1 and 2 scored');
    await first.shutdown();

    // Had the poison unit been committed, a new scorer in the group would not see it again.
    dlqDown = false;
    const dead: BusMessage[] = [];
    const dlq = inner.createConsumer({ topic: 'units.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    await dlq.start();
    cleanups.push(() => dlq.shutdown());
    const second = createScorer(config, deps);
    await second.start();
    cleanups.push(() => second.shutdown());
    await waitUntil(() => dead.length === 1, 10_000, 'the poison unit in the dead-letter topic');
    expect(dead[0].key).toBe(poison);
    expect(dead[0].headers).toEqual({ error: 'invalid unit', 'error-name': 'PermanentError', 'original-topic': 'units', 'original-partition': '0', 'original-offset': '0' });
    expect((await real.queryScores({ check: 'function_result_present' })).map((s) => s.unit_id).sort()).toEqual([unit(1).unit_id, unit(2).unit_id]);
  });

  it('stores two versions of one unit in flight at once as revisions 1 and 2 in publish order, and publishes each score with its revision', async () => {
    const bus = createInMemoryBus({ log });
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    // The first version is judged until the second is in the scorer's hands: without ordering per
    // unit, the second would be stored first.
    let secondInHand = (): void => undefined;
    const secondTaken = new Promise<void>((resolve) => (secondInHand = resolve));
    const watched: Bus = {
      ...bus,
      createConsumer: (options) =>
        bus.createConsumer({
          ...options,
          handle: async (message) => {
            const work = await options.handle(message);
            if (options.topic === 'units' && String(message.value).includes('changed by a late span')) secondInHand();
            return work;
          },
        }),
    };
    const slowFirst: RunnableCheck = {
      name: 'slow_first', version: '1', kind: 'builtin', outputType: 'pass_fail', description: 'slow on the first version',
      run: async (input) => {
        if (input.model_output === 'answer 7') await secondTaken;
        return { status: 'ok', method: 'deterministic', value: input.model_output === 'answer 7' ? 1 : 0, passed: input.model_output === 'answer 7', explanation: '' };
      },
    };
    const first = unit(7);
    const second = { ...first, model_output: 'changed by a late span', span_count: 2, assembled_at_ms: 5 };
    const published: Score[] = [];
    const scoresReader = bus.createConsumer({ topic: 'scores', groupId: 'reader', handle: (m) => Promise.resolve(void published.push(JSON.parse(String(m.value)) as Score)) });
    const scorer = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: 'none' }, { bus: watched, store, log, nowMs: Date.now, checks: [slowFirst], judge: null });
    await scorer.start();
    await scoresReader.start();
    cleanups.push(() => scorer.shutdown(), () => scoresReader.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('units', [first, second].map((u) => ({ key: u.unit_id, value: JSON.stringify(u) })));

    await waitUntil(() => published.length === 2, 10_000, 'both versions scored');
    expect(published.map((s) => [s.unit_revision, s.passed])).toEqual([[1, true], [2, false]]);
    expect((await store.listUnitRevisions(first.unit_id)).map((r) => [r.revision, r.span_count])).toEqual([[1, 1], [2, 2]]);
    expect((await store.getUnit(first.unit_id))?.model_output).toBe('changed by a late span');
    expect((await store.queryScores({ unitId: first.unit_id })).map((s) => [s.unit_revision, s.passed])).toEqual([[2, false]]);
    expect((await store.queryScores({ unitId: first.unit_id, unitRevision: 1 })).map((s) => s.passed)).toEqual([true]);
  });

  it("sends a unit whose id another project owns to the dead-letter topic with the reason, and leaves the owner's unit", async () => {
    const bus = createInMemoryBus({ log });
    const store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    cleanups.push(() => store.shutdown());
    const owned = { ...unit(9), project: 'shop' };
    await store.writeUnits([owned]);
    const dead: BusMessage[] = [];
    const dlq = bus.createConsumer({ topic: 'units.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    const scorer = createScorer({ unitsTopic: 'units', scoresTopic: 'scores', groupId: 'g', judgeUnavailableReason: 'none' }, { bus, store, log, nowMs: Date.now, checks: [createCheckRegistry().get('function_result_present')!], judge: null });
    await dlq.start();
    await scorer.start();
    cleanups.push(() => scorer.shutdown(), () => dlq.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('units', [{ key: owned.unit_id, value: JSON.stringify({ ...owned, project: 'bank', model_output: 'rewritten' }) }]);

    await waitUntil(() => dead.length === 1, 10_000, 'the refused unit in the dead-letter topic');
    expect(dead[0].headers).toEqual({
      error: `unit ${owned.unit_id} belongs to project "shop"; a change sent with a key of project "bank" is refused`,
      'error-name': 'PermanentError',
      'original-topic': 'units',
      'original-partition': '0',
      'original-offset': '0',
    });
    expect(await store.getUnit(owned.unit_id)).toEqual(owned);
    expect(await store.queryScores({ unitId: owned.unit_id })).toEqual([]);
  });
});
