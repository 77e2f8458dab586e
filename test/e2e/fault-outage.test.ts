import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { SPANS_PER_RUN, sendPacedRuns, type PacedRunsResult } from '../helpers/paced-runs.ts';
import { startPrivateClickHouse, startPrivateKafka, type PrivateServer } from '../helpers/private-servers.ts';
import { countScores, dropDatabase, printable, report, topicRecords } from '../helpers/score-counts.ts';
import { startService, type ServiceProcess } from '../helpers/service-processes.ts';

// Outages of Kafka and of ClickHouse under load. The shared servers must never be stopped (others
// use them), so each test stops a private one of its own (test/helpers/private-servers.ts) and
// uses the shared one for the other. Services run as processes of their own, as users run them.

const RUNS = 2_000;
const CHECKS = ['function_result_present', 'loop_guard'];

interface LagHealth {
  status: string;
  total_lag: number;
  behind: boolean;
  consumers: Array<{ group: string; topic: string; total_lag: number; behind: boolean; error: string | null; partitions: Array<{ partition: number; lag: number }> }>;
}

describe('outages under load (Kafka + ClickHouse, one process per service)', () => {
  const services: ServiceProcess[] = [];
  const servers: PrivateServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of services.splice(0).reverse()) await s.kill();
    for (const s of servers.splice(0)) await s.destroy();
    for (const c of cleanups.splice(0)) await c();
  });

  function pipelineEnv(brokers: string[], clickHouseUrl: string): Record<string, string> {
    const database = uniqueName('outage');
    cleanups.push(() => dropDatabase(clickHouseUrl, database));
    return {
      TRACECHECK_KAFKA_BROKERS: brokers.join(','),
      TRACECHECK_CLICKHOUSE_URL: clickHouseUrl,
      TRACECHECK_CLICKHOUSE_DATABASE: database,
      TRACECHECK_KAFKA_PREFIX: uniqueName('outage'),
      TRACECHECK_CHECKS: CHECKS.join(','),
      TRACECHECK_TRACE_COMPLETE_GRACE_MS: '200',
      TRACECHECK_TRACE_GRACE_MS: '1000',
      TRACECHECK_LAG_INTERVAL_MS: '1000',
      TRACECHECK_LAG_BEHIND_RECORDS: '100',
    };
  }

  async function startPipeline(env: Record<string, string>): Promise<{ scorer: ServiceProcess; assembler: ServiceProcess; collector: ServiceProcess }> {
    const scorer = await startService('scorer', env);
    services.push(scorer);
    const assembler = await startService('assembler', env);
    services.push(assembler);
    const collector = await startService('collector', env);
    services.push(collector);
    return { scorer, assembler, collector };
  }

  async function waitAllScored(env: Record<string, string>, sent: PacedRunsResult, exclude: string[], timeoutMs: number) {
    const url = env.TRACECHECK_CLICKHOUSE_URL;
    const database = env.TRACECHECK_CLICKHOUSE_DATABASE;
    const counts = await waitFor(
      async () => {
        const c = await countScores(url, database, CHECKS.length, SPANS_PER_RUN, exclude);
        // The scorer's unit and score inserts run at once: scores can be visible a moment before units.
        return c.completeUnits === RUNS && c.finalRows === RUNS * CHECKS.length && c.unitsStored === RUNS ? c : undefined;
      },
      { timeoutMs, intervalMs: 1_000, description: `${RUNS} units with ${CHECKS.length} scores each` },
    ).catch(async (err: unknown) => {
      const c = await countScores(url, database, CHECKS.length, SPANS_PER_RUN, exclude).catch((e: unknown) => String(e));
      throw new Error(`${String(err)}\ncounts: ${typeof c === 'string' ? c : JSON.stringify(printable(c))}\n${services.map((s) => `--- ${s.name}\n${s.logTail(8)}`).join('\n')}`);
    });
    expect(counts.finalRows).toBe(RUNS * CHECKS.length);
    expect(counts.distinctUnitChecks).toBe(RUNS * CHECKS.length);
    expect(counts.completeUnits).toBe(RUNS);
    expect(counts.unitsStored).toBe(RUNS);
    expect(counts.unitsWithOtherSpanCount).toBe(0);
    expect([...counts.unitIds].sort()).toEqual([...sent.traceIds].sort());
    return counts;
  }

  const health = async (service: ServiceProcess): Promise<LagHealth> => (await (await fetch(`${service.url}/healthz`)).json()) as LagHealth;

  it('Kafka stopped for 20 s under load: the collector answers 503 + Retry-After, the exporter\'s retries land, no acknowledged span is lost', async () => {
    const t0 = Date.now();
    const kafka = await startPrivateKafka();
    servers.push(kafka);
    const kafkaUpMs = Date.now() - t0;
    const env = pipelineEnv(kafka.brokers, testClickHouseUrl());
    const { collector } = await startPipeline(env);

    const outageMs = 20_000;
    let outage: Promise<void> = Promise.resolve();
    let probe: { status: number; retryAfter: string | null; ms: number } | null = null;
    const probeTraceId = randomBytes(16).toString('hex');
    let stoppedAtMs = 0;
    let restartedAtMs = 0;
    const sent = await sendPacedRuns({
      collectorUrl: collector.url,
      runs: RUNS,
      runsPerTick: 25,
      tickMs: 250,
      // As OTEL_EXPORTER_OTLP_TIMEOUT=120000: the exporter retries (503 + Retry-After) within it.
      exportTimeoutMs: 120_000,
      onProgress: async (started) => {
        if (stoppedAtMs !== 0 || started < 500) return;
        await kafka.stop();
        stoppedAtMs = Date.now() - t0;
        outage = (async () => {
          // A request of our own during the outage, to see the collector's answer itself.
          await sleep(2_000);
          const p0 = Date.now();
          const res = await fetch(`${collector.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(probeRequest(probeTraceId)) });
          probe = { status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - p0 };
          await res.body?.cancel();
          await sleep(Math.max(0, outageMs - (Date.now() - t0 - stoppedAtMs)));
          await kafka.start();
          restartedAtMs = Date.now() - t0;
        })();
      },
    });
    await outage;
    const sentAtMs = Date.now() - t0;
    const rejected = await collectorCounter(collector, 'tracecheck_spans_rejected_total{reason="unavailable"}');
    report(`kafka outage`, { kafkaUpMs, stoppedAtMs, restartedAtMs, sentAtMs, probe, spansAnswered503: rejected, exportsOk: sent.exportsOk, exportsFailed: sent.exportsFailed, spansAcknowledged: sent.spansAcknowledged, tracesAcknowledged: sent.tracesAcknowledged.size });
    expect(probe).toMatchObject({ status: 503, retryAfter: '5' });
    expect(rejected).toBeGreaterThan(0);
    expect(sent.exportsFailed).toBe(0);
    expect(sent.spansAcknowledged).toBe(RUNS * SPANS_PER_RUN);
    expect(sent.tracesAcknowledged.size).toBe(RUNS);

    const counts = await waitAllScored(env, sent, [probeTraceId], 180_000);
    const [unitRecords, scoreRecords, probeScores] = await Promise.all([
      topicRecords(kafka.brokers, `${env.TRACECHECK_KAFKA_PREFIX}.units`),
      topicRecords(kafka.brokers, `${env.TRACECHECK_KAFKA_PREFIX}.scores`),
      countScores(env.TRACECHECK_CLICKHOUSE_URL, env.TRACECHECK_CLICKHOUSE_DATABASE, CHECKS.length, 1).then((all) => all.finalRows - counts.finalRows),
    ]);
    // The probe was answered 503 (not accepted); its produce may still have landed after the broker returned: at least once.
    report(`kafka outage`, { ...printable(counts), unitRecords, scoreRecords, probeScoreRows: probeScores, allScoredAfterMs: Date.now() - t0 });
    expect([0, CHECKS.length]).toContain(probeScores);
    // Longer than the waits inside (outage ~35–55 s, then up to 180 s to score): a slow recovery fails with its counts, not a bare timeout.
  }, 270_000);

  it('ClickHouse stopped for 60 s under load: consumption pauses and resumes, no score lost, lag recovers', async () => {
    const t0 = Date.now();
    const clickhouse = await startPrivateClickHouse();
    servers.push(clickhouse);
    const env = pipelineEnv(testKafkaBrokers(), clickhouse.url);
    const { scorer, collector } = await startPipeline(env);
    const scorerGroup = `${env.TRACECHECK_KAFKA_PREFIX}-scorer`;

    const outageMs = 60_000;
    let stoppedAtMs = 0;
    let duringOutage: LagHealth | null = null;
    let lagMetricDuringOutage = 0;
    let outage: Promise<void> = Promise.resolve();
    const sent = await sendPacedRuns({
      collectorUrl: collector.url,
      runs: RUNS,
      runsPerTick: 50,
      tickMs: 250,
      exportTimeoutMs: 60_000,
      onProgress: async (started) => {
        if (stoppedAtMs !== 0 || started < 500) return;
        await clickhouse.stop();
        stoppedAtMs = Date.now() - t0;
        outage = (async () => {
          // Spans keep arriving: the scorer stops consuming (its in-flight units wait for the store)
          // and its lag grows past the threshold.
          duringOutage = await waitFor(
            async () => {
              const h = await health(scorer);
              const c = h.consumers.find((x) => x.group === scorerGroup);
              return c && c.behind && c.total_lag >= 100 ? h : undefined;
            },
            { timeoutMs: outageMs - 5_000, intervalMs: 500, description: 'the scorer reported behind' },
          );
          lagMetricDuringOutage = await lagMetricTotal(scorer, scorerGroup);
          await sleep(Math.max(0, outageMs - (Date.now() - t0 - stoppedAtMs)));
          await clickhouse.start();
        })();
      },
    });
    await outage;
    const restartedAtMs = Date.now() - t0;
    expect(sent.exportsFailed).toBe(0);
    expect(sent.tracesAcknowledged.size).toBe(RUNS);
    const during = (duringOutage as LagHealth | null)?.consumers.find((c) => c.group === scorerGroup);
    expect(duringOutage).toMatchObject({ status: 'behind', behind: true });
    expect(during?.behind).toBe(true);
    expect(lagMetricDuringOutage).toBeGreaterThanOrEqual(100);

    const counts = await waitAllScored(env, sent, [], 120_000);
    const allScoredAtMs = Date.now() - t0;
    // Lag back to 0 on every partition once everything is committed.
    const after = await waitFor(
      async () => {
        const h = await health(scorer);
        const c = h.consumers.find((x) => x.group === scorerGroup);
        return c && c.total_lag === 0 && c.error === null ? h : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, description: 'scorer lag back to 0' },
    );
    const lagRecoveredAtMs = Date.now() - t0;
    const behindLines = scorer.logRecords().filter((r) => r.msg === 'consumer is behind' && r.group === scorerGroup);
    const scoreRecords = await topicRecords(testKafkaBrokers(), `${env.TRACECHECK_KAFKA_PREFIX}.scores`);
    report(`clickhouse outage`, { stoppedAtMs, restartedAtMs, allScoredAtMs, lagRecoveredAtMs, lagDuringOutage: during?.total_lag, lagMetricDuringOutage, behindLogLines: behindLines.length, ...printable(counts), scoreRecords, lagAfter: after.total_lag });
    expect(after).toMatchObject({ status: expect.any(String) as unknown, behind: false });
    expect(after.consumers.find((c) => c.group === scorerGroup)?.partitions.map((p) => p.lag)).toEqual([0, 0, 0]);
    expect(await lagMetricTotal(scorer, scorerGroup)).toBe(0);
    // "consumer is behind" at most once a minute: lines at least 60 s apart.
    expect(behindLines.length).toBeGreaterThanOrEqual(1);
    const times = behindLines.map((r) => Number(r.time));
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(60_000);
    // Longer than the waits inside (outage 60 s, then up to 120 s to score and 30 s for the lag): a slow recovery fails with its counts.
  }, 300_000);
});

function probeRequest(traceId: string) {
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'outage-probe' } }] },
        scopeSpans: [{ scope: { name: 'probe' }, spans: [{ traceId, spanId: randomBytes(8).toString('hex'), name: 'probe', kind: 1, startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1_000_000n) }] }],
      },
    ],
  };
}

async function collectorCounter(collector: ServiceProcess, series: string): Promise<number> {
  const text = await (await fetch(`${collector.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** Sum of tracecheck_consumer_lag_records over the group's partitions, from the service's /metrics. */
async function lagMetricTotal(service: ServiceProcess, group: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`tracecheck_consumer_lag_records{group="${group}",`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
