import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../tools/demo-agent/src/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { expectDemoUnits, waitForScoredUnit } from './demo-expectations.ts';

// The production path: OTel SDK → collector → real Kafka → assembler → scorer → real ClickHouse → API.
describe('pipeline on Kafka + ClickHouse', () => {
  let h: Harness;
  const database = uniqueName('e2e');
  beforeAll(async () => {
    h = await startPipeline({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(","), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: database });
  });
  afterAll(async () => {
    await h?.stop();
    await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' }).catch(() => undefined);
  });

  it('scores the demo agent\'s three conversations and serves them by trace id', async () => {
    expect(h.pipeline.bus.kind).toBe('kafka');
    expect(h.pipeline.store?.kind).toBe('clickhouse');
    const { traceIds } = await runDemo({ collectorUrl: h.pipeline.collectorUrl(), modelBaseUrl: h.modelUrl });
    const [healthy, toolFails, loops] = await Promise.all([
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.healthy, 60_000),
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.toolFails, 60_000),
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.loops, 60_000),
    ]);
    expectDemoUnits(healthy, toolFails, loops);

    // The scores query filters by check and time.
    const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/scores?check=task_completed&from=${Date.now() - 600_000}&limit=10`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { scores: Array<{ check: string; unit_id: string }> };
    expect(body.scores.map((s) => s.check)).toEqual(['task_completed', 'task_completed', 'task_completed']);
    expect(new Set(body.scores.map((s) => s.unit_id))).toEqual(new Set(Object.values(traceIds)));
  });
});
