import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Producer } from '../../shared/adapters/bus/index.ts';
import type { ResilientJudge } from '../../shared/engines/judge/index.ts';
import type { Score, Unit } from '../../shared/contracts/schemas/index.ts';
import { waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { createTestUnit } from '../helpers/unit-factory.ts';

// The judge never stalls: the scorer's judge (our model server, driven through its fault control)
// answers 429 to every call for a while, then hangs past the timeout, then recovers. Every unit
// ends with a score or an error score naming the reason, the circuit opens and closes, and a
// monitor's budget (changed through the API while the scorer runs) is respected exactly.
// Embedded mode: the bus and store play no part in what is measured here.

describe('judge operations on a running scorer', () => {
  let h: Harness;
  let producer: Producer;
  beforeAll(async () => {
    h = await startPipeline({
      TRACECHECK_JUDGE_TIMEOUT_MS: '1000',
      TRACECHECK_JUDGE_DEADLINE_MS: '5000',
      TRACECHECK_JUDGE_BREAKER_FAILURES: '3',
      TRACECHECK_JUDGE_BREAKER_COOLDOWN_MS: '500',
      TRACECHECK_CONFIG_POLL_MS: '200',
    });
    producer = h.pipeline.bus.createProducer();
    await producer.start();
  });
  afterAll(async () => {
    await producer?.shutdown();
    await h?.stop();
  });
  const judge = (): ResilientJudge => h.pipeline.judge as ResilientJudge;
  const fault = async (mode: string): Promise<void> => {
    const res = await fetch(`${h.modelUrl.replace(/\/v1$/, '')}/control/fault`, { method: 'POST', body: JSON.stringify({ mode, retry_after_s: 1 }) });
    expect(res.status).toBe(200);
  };
  const monitor = async (method: 'POST' | 'PUT', callsPerMinute: number): Promise<void> => {
    const body = { name: 'judged', checks: ['task_completed'], filters: { agent: 'judged-agent' }, budget: { calls_per_minute: callsPerMinute } };
    const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/monitors${method === 'PUT' ? '/judged' : ''}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(method === 'POST' ? 201 : 200);
  };
  /** Sends 10 new units and waits until every one has its task_completed score. */
  const phase = async (first: number): Promise<Score[]> => {
    const units: Unit[] = Array.from({ length: 10 }, (_, i) => createTestUnit(first + i, { agent_name: 'judged-agent' }));
    await producer.send(h.topics.units, units.map((u) => ({ key: u.unit_id, value: JSON.stringify(u) })));
    const ids = new Set(units.map((u) => u.unit_id));
    return waitFor(async () => {
      const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/scores?check=task_completed&agent=judged-agent&limit=1000`);
      const scores = ((await res.json()) as { scores: Score[] }).scores.filter((s) => ids.has(s.unit_id));
      return scores.length === 10 ? scores : null;
    }, { timeoutMs: 30_000, intervalMs: 200, description: `10 scores of units ${first}…${first + 9}` });
  };
  const budgetApplied = (callsPerMinute: number) =>
    waitFor(() => h.pipeline.checkSelector!.select(createTestUnit(0, { agent_name: 'judged-agent' }))[0]?.monitor === 'judged' && callsPerMinute, { timeoutMs: 10_000, intervalMs: 50, description: 'the monitor applied' });

  it('429 storm, then hangs, then recovery: nothing pending, reasons on every error, circuit opens and closes, budget exact', async () => {
    await monitor('POST', 1_000);
    await budgetApplied(1_000);

    await fault('429');
    const rateLimited = await phase(0);
    expect(rateLimited.every((s) => s.status === 'error')).toBe(true);
    for (const s of rateLimited) {
      expect(s.error).toMatch(/^judge call failed: JudgeRetriableError: judge gave no answer within its 5000 ms deadline \(\d+ attempts over \d+ ms\); last: (judge mock-judge failed \(429\): 429 Rate limit reached|judge circuit (open after 3 failures in a row|half-open))/);
    }
    expect(judge().stats().circuitOpened).toBeGreaterThanOrEqual(1);

    await fault('hang');
    const hung = await phase(100);
    expect(hung.every((s) => s.status === 'error')).toBe(true);
    for (const s of hung) expect(s.error).toMatch(/^judge call failed: JudgeRetriableError: judge gave no answer within its 5000 ms deadline .*last: (judge call timed out after 1000 ms|judge circuit (open|half-open))/);
    expect(hung.some((s) => s.error!.includes('timed out after 1000 ms'))).toBe(true);

    await fault('none');
    await monitor('PUT', 5);
    // The poll (200 ms) and the circuit's cooldown (500 ms), with room for a loaded machine: a judge
    // call that merely runs slow there must not reopen the circuit (hence also the 1 s call timeout).
    await new Promise((r) => setTimeout(r, 1500));
    const recovered = await phase(200);
    const ok = recovered.filter((s) => s.status === 'ok');
    expect(ok).toHaveLength(5);
    expect(ok.every((s) => s.passed === true && s.judge_model === 'mock-judge')).toBe(true);
    for (const s of recovered.filter((x) => x.status !== 'ok')) expect(s.error).toBe('judge call failed: JudgeBudgetError: judge budget of monitor "judged" exhausted: more than 5 calls per minute');
    expect(judge().stats().circuit).toBe('closed');
    expect(judge().stats().circuitClosed).toBeGreaterThanOrEqual(1);
    expect(judge().stats().inFlight).toBe(0);
  });
});
