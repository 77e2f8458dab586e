import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Producer } from '../../shared/adapters/bus/index.ts';
import { isSampled } from '../../shared/engines/monitors/index.ts';
import type { Score, Unit } from '../../shared/contracts/schemas/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { createTestUnit } from '../helpers/unit-factory.ts';

// Monitors on a running pipeline, in both modes: a monitor created through the API with
// sample_rate 0.2 over 1,000 units has the judge score exactly the units its hash selects (200 ±
// sampling error), the same ones again on a replay; a PUT changes what a running scorer does
// within its poll interval, without a restart. Units go straight onto the units topic.

const MODES = [
  { name: 'embedded (in-process bus + DuckDB)', env: (): Record<string, string> => ({}) },
  {
    name: 'Kafka + ClickHouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_monitors') }),
  },
];

for (const mode of MODES) {
  describe(`monitors: ${mode.name}`, () => {
    let h: Harness;
    let producer: Producer;
    const env = mode.env();
    beforeAll(async () => {
      h = await startPipeline({ ...env, TRACECHECK_CONFIG_POLL_MS: '200', TRACECHECK_SCORER_CONCURRENCY: '16', TRACECHECK_JUDGE_CONCURRENCY: '8' });
      producer = h.pipeline.bus.createProducer();
      await producer.start();
    });
    afterAll(async () => {
      await producer?.shutdown();
      await h?.stop();
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });
    const send = (units: readonly Unit[]) => producer.send(h.topics.units, units.map((u) => ({ key: u.unit_id, value: JSON.stringify(u) })));
    const scores = async (query: string): Promise<Score[]> => {
      const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/scores?limit=1000&${query}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { scores: Score[] }).scores;
    };
    const monitorIs = (probe: Unit, monitor: string | null, checks: string[]) =>
      waitFor(() => {
        const selected = h.pipeline.checkSelector!.select(probe);
        return selected.every((s) => s.monitor === monitor) && selected.map((s) => s.check.name).join() === checks.join();
      }, { timeoutMs: 10_000, intervalMs: 50, description: `the running scorer applies ${monitor ?? 'no monitor'}` });

    it('samples 20% by unit id for the judge, the same units on a replay, and applies a PUT without restart', async () => {
      const monitor = { name: 'judge-sample', checks: ['task_completed'], filters: { agent: 'sampled-agent' }, sample_rate: 0.2 };
      const created = await fetch(`${h.pipeline.apiUrl()}/api/v1/monitors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(monitor) });
      expect(created.status).toBe(201);
      const units = Array.from({ length: 1_000 }, (_, i) => createTestUnit(i, { agent_name: 'sampled-agent' }));
      const expected = units.filter((u) => isSampled(u.unit_id, 0.2)).map((u) => u.unit_id).sort();
      // 200 ± 3σ, σ = √(1000 · 0.2 · 0.8) ≈ 12.6
      expect(Math.abs(expected.length - 200)).toBeLessThanOrEqual(38);
      await monitorIs(units.find((u) => isSampled(u.unit_id, 0.2))!, 'judge-sample', ['task_completed']);
      expect(h.pipeline.checkSelector!.select(units.find((u) => !isSampled(u.unit_id, 0.2))!)).toEqual([]);

      await send(units);
      const scored = await waitFor(async () => {
        const s = await scores('check=task_completed&agent=sampled-agent');
        return s.length === expected.length ? s : null;
      }, { timeoutMs: 120_000, intervalMs: 500, description: `${expected.length} task_completed scores` });
      expect(scored.map((s) => s.unit_id).sort()).toEqual(expected);
      expect(scored.every((s) => s.status === 'ok' && s.method === 'model' && s.judge_model === 'mock-judge')).toBe(true);

      // A replay scores the same units again (idempotently: still one score each).
      const replayAt = Date.now();
      await send(units);
      const replayed = await waitFor(async () => {
        const s = await scores('check=task_completed&agent=sampled-agent');
        return s.length === expected.length && s.every((x) => x.created_at_ms >= replayAt) ? s : null;
      }, { timeoutMs: 120_000, intervalMs: 500, description: 'the replay re-scored' });
      expect(replayed.map((s) => s.unit_id).sort()).toEqual(expected);

      // Changed through the API: every unit, a deterministic check instead.
      const put = await fetch(`${h.pipeline.apiUrl()}/api/v1/monitors/judge-sample`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...monitor, checks: ['loop_guard'], sample_rate: 1 }) });
      expect(put.status).toBe(200);
      const fresh = Array.from({ length: 50 }, (_, i) => createTestUnit(10_000 + i, { agent_name: 'sampled-agent' }));
      await monitorIs(fresh[0], 'judge-sample', ['loop_guard']);
      await send(fresh);
      const loopGuard = await waitFor(async () => {
        const s = await scores('check=loop_guard&agent=sampled-agent');
        return s.length === 50 ? s : null;
      }, { timeoutMs: 60_000, intervalMs: 300, description: '50 loop_guard scores' });
      expect(loopGuard.map((s) => s.unit_id).sort()).toEqual(fresh.map((u) => u.unit_id).sort());
      expect((await scores('check=task_completed&agent=sampled-agent')).length).toBe(expected.length);

      // Deleted: the default monitor (TRACECHECK_CHECKS) applies again.
      expect((await fetch(`${h.pipeline.apiUrl()}/api/v1/monitors/judge-sample`, { method: 'DELETE' })).status).toBe(204);
      await monitorIs(fresh[0], null, ['function_result_present', 'task_completed']);
    }, 360_000);
  });
}
