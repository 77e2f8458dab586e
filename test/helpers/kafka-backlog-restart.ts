import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { genAiRunsExport, genAiRunsProtobuf, SPANS_PER_RUN } from './genai-run-export.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from './infra.ts';
import { dropDatabase } from './score-counts.ts';
import { startService, type ServiceProcess } from './service-processes.ts';

// Issue 22's restart under a backlog, Kafka + ClickHouse, one process per service (dist/): the
// assembler and scorer are stopped, `traces` 10-span runs go through the collector (OTLP/protobuf) into the spans
// topic (its backlog bound raised so that it takes them all, as it did while the pipeline was
// wedged), then both start again. Measured: the assembler's and scorer's RSS (from /proc every
// 500 ms), the time until every backlog trace is scored, and the time until a trace sent then is
// scored within a second again. Shared by test/e2e/kafka-backlog-restart.test.ts (a small
// backlog) and bench/backlog-restart.ts (300,000 spans).

const TRACES_PER_REQUEST = 50;
const SENDERS = 4;

export interface BacklogRestartOptions {
  traces: number;
  /** How long to wait for the drain and for a sub-second probe, each. */
  drainTimeoutMs: number;
}

export interface BacklogRestartResult {
  spansInBacklog: number;
  /** Records of the spans topic the assembler's group had not committed when it started again. */
  lagAtRestart: number;
  fillMs: number;
  /** Units the assembler's session router (which reads every unit) had not committed when the last backlog trace was scored. */
  routerLagAtDrain: number;
  /** From the assembler's and scorer's start until every backlog trace was scored. */
  drainMs: number;
  /** From their start until a trace sent then was scored within a second. */
  subSecondAfterMs: number;
  /** Each probe's send-to-scored time, in order (the last under a second). */
  probeMs: number[];
  assemblerMaxRssMb: number;
  scorerMaxRssMb: number;
  /** Exact counts at the end: raw score rows, distinct scored units, distinct 10-span units, and what was sent. */
  scoreRows: number;
  scoredUnits: number;
  units: number;
  tracesSent: number;
}

async function query(sql: string): Promise<number> {
  const res = await fetch(testClickHouseUrl(), { method: 'POST', body: sql, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(text);
  return Number(text.trim());
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Records of `topic` the group has not committed. */
async function groupLag(topic: string, groupId: string): Promise<number> {
  const admin = new Kafka({ clientId: 'backlog-restart', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const [high, [group]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const committed = new Map((group?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return high.reduce((n, p) => n + Number(p.high) - Math.max(Number(p.low), committed.get(p.partition) ?? 0), 0);
  } finally {
    await admin.disconnect();
  }
}

async function post(collector: ServiceProcess, body: string | Buffer): Promise<number> {
  const res = await fetch(`${collector.url}/v1/traces`, { method: 'POST', headers: { 'content-type': typeof body === 'string' ? 'application/json' : 'application/x-protobuf' }, body, signal: AbortSignal.timeout(60_000) });
  await res.arrayBuffer();
  return res.status;
}

export async function runKafkaBacklogRestart(options: BacklogRestartOptions): Promise<BacklogRestartResult> {
  const database = uniqueName('backlog');
  const prefix = uniqueName('backlog');
  const running = new Set<ServiceProcess>();
  const env = {
    TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','),
    TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(),
    TRACECHECK_CLICKHOUSE_DATABASE: database,
    TRACECHECK_KAFKA_PREFIX: prefix,
    TRACECHECK_CHECKS: 'function_result_present',
    // The collector takes the whole backlog: it stands for one built while the pipeline was down.
    TRACECHECK_BACKLOG_MAX_RECORDS: String(options.traces * SPANS_PER_RUN * 2 + 100_000),
    TRACECHECK_LAG_INTERVAL_MS: '1000',
    TRACECHECK_LOG_LEVEL: 'warn',
  };
  const start = async (name: ServiceProcess['name']) => {
    const s = await startService(name, env, { readyTimeoutMs: 150_000 });
    running.add(s);
    return s;
  };
  const scored = (): Promise<number> => query(`SELECT count() FROM ${database}.scores`);
  let sent = 0;
  try {
    const collector = await start('collector');
    let assembler = await start('assembler');
    let scorer = await start('scorer');
    // One trace through the running pipeline first: the groups have committed offsets, as a
    // deployment that ran before has.
    const warm = genAiRunsExport(1);
    if ((await post(collector, warm.body)) !== 200) throw new Error('the warm-up export was refused');
    sent += 1;
    await waitFor(async () => (await scored()) === 1 || undefined, { timeoutMs: 60_000, intervalMs: 200, description: 'the warm-up trace scored' });
    for (const s of [assembler, scorer]) {
      await s.stop();
      running.delete(s);
    }

    const fillStart = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < options.traces) {
          const n = Math.min(TRACES_PER_REQUEST, options.traces - next);
          next += n;
          const batch = genAiRunsProtobuf(n);
          const status = await post(collector, batch.body);
          if (status !== 200) throw new Error(`the collector answered ${status} while the backlog was built`);
          sent += n;
        }
      }),
    );
    const fillMs = Date.now() - fillStart;
    const lagAtRestart = await groupLag(`${prefix}.spans`, `${prefix}-assembler`);

    let assemblerMaxRssMb = 0;
    let scorerMaxRssMb = 0;
    const sampler = setInterval(() => {
      assemblerMaxRssMb = Math.max(assemblerMaxRssMb, rssMb(assembler.pid()));
      scorerMaxRssMb = Math.max(scorerMaxRssMb, rssMb(scorer.pid()));
    }, 500);
    try {
      const t0 = Date.now();
      [assembler, scorer] = await Promise.all([start('assembler'), start('scorer')]);
      let drainMs = -1;
      let routerLagAtDrain = -1;
      const drained = waitFor(async () => (await scored()) >= 1 + options.traces || undefined, { timeoutMs: options.drainTimeoutMs, intervalMs: 500, description: 'every backlog trace scored' }).then(async () => {
        drainMs = Date.now() - t0;
        // The assembler's session router reads every unit too: is it still behind once all are scored?
        routerLagAtDrain = await groupLag(`${prefix}.units`, `${prefix}-sessions-route`).catch(() => -1);
      });
      // Probes, one after another, each waited for until scored: sent during the drain, a probe
      // waits behind the backlog on its partition; the first scored within a second marks recovery.
      const probeMs: number[] = [];
      let subSecondAfterMs = -1;
      while (subSecondAfterMs < 0) {
        if (Date.now() - t0 > 2 * options.drainTimeoutMs) throw new Error(`no probe scored within a second in ${2 * options.drainTimeoutMs} ms: ${JSON.stringify(probeMs)}`);
        const probe = genAiRunsExport(1);
        const sentAt = Date.now();
        const status = await post(collector, probe.body);
        if (status !== 200) throw new Error(`a probe was answered ${status}`);
        sent += 1;
        await waitFor(async () => (await query(`SELECT count() FROM ${database}.scores WHERE unit_id = '${probe.ids[0]}'`)) === 1 || undefined, { timeoutMs: options.drainTimeoutMs, intervalMs: 50, description: 'a probe scored' });
        const ms = Date.now() - sentAt;
        probeMs.push(ms);
        if (ms < 1_000) subSecondAfterMs = Date.now() - t0;
        else await sleep(250);
      }
      await drained;
      // Nothing more is on its way: give a late duplicate the time to land before counting.
      await sleep(3_000);
      const [scoreRows, scoredUnits, units] = await Promise.all([
        scored(),
        query(`SELECT uniqExact(unit_id) FROM ${database}.scores`),
        query(`SELECT uniqExact(unit_id) FROM ${database}.units WHERE span_count = ${SPANS_PER_RUN}`),
      ]);
      return { spansInBacklog: options.traces * SPANS_PER_RUN, lagAtRestart, routerLagAtDrain, fillMs, drainMs, subSecondAfterMs, probeMs, assemblerMaxRssMb: Math.round(assemblerMaxRssMb), scorerMaxRssMb: Math.round(scorerMaxRssMb), scoreRows, scoredUnits, units, tracesSent: sent };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    for (const s of running) await s.stop();
    await dropDatabase(testClickHouseUrl(), database);
  }
}
