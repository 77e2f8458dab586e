import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProblems } from '../../../shared/engines/problems/index.ts';
import { runsOf, sendRuns } from '../../helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';

// Problems appear on the stream (issue 37): runs that loop over one tool call, sent through the
// real OTel SDK and the collector, come out of the scorer failing loop_guard, and the problem miner
// in the alerter's process groups them into one problem in the store, on both deployments.

const deployments: Array<[string, () => Record<string, string>]> = [
  ['in-process bus + DuckDB', () => ({})],
  ['Kafka + ClickHouse', () => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('problems') })],
];

describe.each(deployments)('problems on the stream (%s)', (_name, env) => {
  let h: Harness;
  let traceIds: string[];
  const runs = runsOf('booking', 'v1', 12, 5);
  beforeAll(async () => {
    h = await startPipeline({ ...env(), TRACECHECK_CHECKS: 'loop_guard' }, { alerterNow: Date.now });
    traceIds = await sendRuns(runs, { collectorUrl: h.pipeline.collectorUrl() });
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('groups the looping runs into one problem with their units', async () => {
    const looping = traceIds.filter((_, i) => runs[i].loops).sort();
    const store = h.pipeline.store!;
    const problems = await waitFor(
      async () => {
        const found = await listProblems(store, 'default');
        return found.length === 1 && found[0].count === 5 ? found : null;
      },
      { timeoutMs: 60_000, description: 'one problem of five units' },
    );
    expect(problems[0]).toMatchObject({ title: 'booking: loop over check_availability', cause: 'loop', agent: 'booking', shape: 'check_availability', checks: { 'loop_guard:fail': 5 }, by_version: { 'booking\u0000v1': 5 } });
    expect([...problems[0].sample].sort()).toEqual(looping);
  });
});
