import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsOf, sendRuns } from '../helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// GET /api/v1/pipeline over the real pipeline in both modes: the process's status doc reaches the
// API through the store (the same path as when the stages run in other processes), with every
// stage's backlog, the judge's limit, a scoring rate once units were scored, and "caught up".

const MODES = [
  { key: 'embedded', env: (): Record<string, string> => ({}) },
  {
    key: 'kafka-clickhouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_backlog') }),
  },
];

interface Answer {
  processes: Array<{ services: string[] }>;
  stages: Array<{ stage: string; waiting: number | null; error: string | null }>;
  judge: { rate_per_minute: number; concurrency: number } | null;
  scored_per_minute: number | null;
  eta_ms: number | null;
  problems: string[];
}

describe.each(MODES)('pipeline backlog: $key', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPipeline({ ...mode.env(), TRACECHECK_CHECKS: 'loop_guard', TRACECHECK_JUDGE_RATE_PER_MINUTE: '120', TRACECHECK_JUDGE_CONCURRENCY: '3' });
  });
  afterAll(() => h?.stop());

  it('shows each stage, the judge limit, the scoring rate and caught up once the runs are scored', async () => {
    await sendRuns(runsOf('backlog-agent', 'v1', 12, 0), { collectorUrl: h.pipeline.collectorUrl() });
    let last: Answer | null = null;
    await waitFor(
      async () => {
        last = (await (await fetch(`${h.pipeline.apiUrl()}/api/v1/pipeline`)).json()) as Answer;
        // The assembler commits its spans a little after the units are out (Kafka): wait for that too.
        return last.eta_ms === 0 && (last.scored_per_minute ?? 0) > 0 && last.stages.find((s) => s.stage === 'assemble')?.waiting === 0;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'a scoring rate and caught up' },
    );
    const a = last!;
    expect(a.processes.map((p) => [...p.services].sort())).toEqual([['api', 'assembler', 'collector', 'scorer']]);
    // On Kafka the session aggregator commits a session's traces only once it closes (idle for
    // TRACECHECK_SESSION_IDLE_MS): its 12 traces stay counted; in process only unread records count.
    const open = mode.key === 'kafka-clickhouse' ? 12 : 0;
    expect(a.stages.filter((s) => s.stage !== 'route').map((s) => [s.stage, s.waiting, s.error])).toEqual([['assemble', 0, null], ['score', 0, null], ['sessions', open, null]]);
    expect([a.judge?.rate_per_minute, a.judge?.concurrency]).toEqual([120, 3]);
    expect(a.problems).toEqual([]);
  });
});
