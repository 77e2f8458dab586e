// Kafka + ClickHouse mode under a steady span rate for a while: the four services as separate
// processes from the built dist/ (`tracecheck collector`, `assembler`, `scorer`, `api`), each one's
// RSS sampled every 10 s. Does memory stay flat once the open sessions (held for
// TRACECHECK_SESSION_IDLE_MS, 15 min; every run is a new conversation) level off? At the end every
// sent trace must have been scored (exact, from ClickHouse). The load generator is the one of
// bench/embedded-soak.ts, in this process. Uses the running Kafka and ClickHouse (the test servers,
// TRACECHECK_TEST_KAFKA_BROKERS / TRACECHECK_TEST_CLICKHOUSE_URL) with its own topic prefix,
// consumer groups and database, all removed at the end.
// `npm run build && npm run bench:soak-kafka [-- --minutes 30 --rate 500 --root DIR --session-idle-ms N --trace-gc]`;
// appended to bench/results/kafka-soak.md. `--root` runs another build's bin/ and dist/;
// `--session-idle-ms` shortens the session idle time (so memory settles sooner); `--trace-gc` runs
// the assembler and the scorer with V8's --trace-gc and reports the heap left after each full GC
// (what is retained, where the RSS and heap-used samples also show what V8 lets accumulate); those two
// also write a heap snapshot into their working directory on SIGUSR2 (`kill -USR2 <pid>`, pids printed at start).
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../test/helpers/infra.ts';
import { startService, type ServiceProcess } from '../test/helpers/service-processes.ts';
import { driveLoad, everyTenSeconds, loadAverages, rssMb, slopePerMinute, type LoadCounts } from './soak-load.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const minutes = arg('minutes', 30);
const rate = arg('rate', 500);
const rootAt = process.argv.indexOf('--root');
/** Another build's bin/ and dist/ (a before/after pair on one checkout); this checkout's by default. */
const root = rootAt >= 0 ? process.argv[rootAt + 1] : undefined;
const sessionIdleMs = arg('session-idle-ms', 15 * 60_000);
const traceGc = process.argv.includes('--trace-gc');
/** Minutes after which the open sessions should have levelled off (the session idle time and one more). */
const settledFrom = Math.ceil(sessionIdleMs / 60_000) + 1;
const DRAIN_BOUND_MS = 10 * 60_000;

const clickhouse = testClickHouseUrl();
const brokers = testKafkaBrokers();
const database = uniqueName('soak');
const prefix = uniqueName('soak');
const names = ['collector', 'assembler', 'scorer', 'api'] as const;
type Name = (typeof names)[number];

/** A DROP DATABASE on the loaded machine's ClickHouse 18.16 took 53 s: generous bounds. */
async function query(sql: string, timeoutMs = 60_000): Promise<string> {
  const res = await fetch(`${clickhouse}/?query=${encodeURIComponent(sql)}`, { method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text.slice(0, 300)}`);
  return text;
}
const scoredTraces = async (): Promise<number> => Number((await query(`SELECT uniqExact(unit_id) FROM ${database}.scores WHERE unit_kind = 'trace'`)).trim());

/** The consumer groups, by what follows the prefix: the assembler's, the session router's, the session aggregator's, the scorer's. */
const groups = ['assembler', 'sessions-route', 'sessions', 'scorer'] as const;
type Lag = Record<(typeof groups)[number], number>;

/** A service's JS heap in use (MB) and the consumer lag (records) it reports per group, from its /metrics; NaN when it has none. */
async function ownMetrics(service: ServiceProcess): Promise<{ heapMb: number; lag: Partial<Lag> }> {
  try {
    const text = await (await fetch(`${service.url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const heap = /^tracecheck_nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
    const lag: Partial<Lag> = {};
    for (const x of text.matchAll(/^tracecheck_consumer_lag_records\{[^}]*group="([^"]+)"[^}]*\} (\S+)$/gm)) {
      const group = groups.find((g) => x[1] === `${prefix}-${g}`);
      if (group) lag[group] = (lag[group] ?? 0) + Number(x[2]);
    }
    return { heapMb: heap ? Number(heap[1]) / 2 ** 20 : Number.NaN, lag };
  } catch {
    return { heapMb: Number.NaN, lag: {} };
  }
}

/** Its topics and consumer groups (all named after its prefix). */
async function deleteTopics(): Promise<void> {
  const admin = new Kafka({ clientId: 'kafka-soak-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`) || t.startsWith(`${prefix}-`));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    // Right after the services stop, the broker may not have removed their members yet ("group not
    // empty"): try again for up to 30 s, each time with the groups still there (a failed call may
    // have deleted some, and naming a deleted group fails the call).
    for (let attempt = 1; ; attempt++) {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(`${prefix}-`));
      if (groups.length === 0) break;
      try {
        await admin.deleteGroups(groups);
        break;
      } catch (err) {
        if (attempt >= 15) throw err;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

const env = {
  TRACECHECK_KAFKA_BROKERS: brokers.join(','),
  TRACECHECK_KAFKA_PREFIX: prefix,
  TRACECHECK_CLICKHOUSE_URL: clickhouse,
  TRACECHECK_CLICKHOUSE_DATABASE: database,
  TRACECHECK_CHECKS: 'loop_guard,function_result_present',
  TRACECHECK_LOG_LEVEL: 'warn',
  TRACECHECK_SESSION_IDLE_MS: String(sessionIdleMs),
};
/** The services whose full GCs are logged with --trace-gc, and where. */
const gcTraced: Name[] = traceGc ? ['assembler', 'scorer'] : [];
const gcLog = (name: Name): string => join(import.meta.dirname, '..', '.cache', `kafka-soak-${prefix}-${name}-gc.log`);
const spawnedAt = new Map<Name, number>();

/** The heap left after each full GC (Mark-Compact) of a service, at seconds since the load started. */
function fullGcs(name: Name, started: number): Array<{ s: number; afterMb: number }> {
  const offset = ((spawnedAt.get(name) ?? started) - started) / 1000;
  return readFileSync(gcLog(name), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const m = /\s(\d+) ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(line);
      return m ? [{ s: Number(m[1]) / 1000 + offset, afterMb: Number(m[2]) }] : [];
    });
}
const services = new Map<Name, ServiceProcess>();
const loadAtStart = loadAverages();
try {
  if (traceGc) mkdirSync(join(import.meta.dirname, '..', '.cache'), { recursive: true });
  for (const name of names) {
    const traced = gcTraced.includes(name);
    spawnedAt.set(name, Date.now());
    services.set(name, await startService(name, env, { readyTimeoutMs: 150_000, ...(root ? { root } : {}), ...(traced ? { stdoutFile: gcLog(name), nodeArgs: ['--trace-gc', '--heapsnapshot-signal=SIGUSR2'] } : {}) }));
  }
  const svc = (name: Name): ServiceProcess => services.get(name)!;
  console.log(`kafka soak: ${minutes} min at ${rate} spans/s, prefix ${prefix}, database ${database}, pids ${names.map((n) => `${n} ${svc(n).pid()}`).join(', ')}; load average ${loadAtStart}`);

  type Sample = { s: number; rss: Record<Name, number>; heap: Record<Name, number>; lag: Lag; sentRuns: number; scored: number; load: number };
  const samples: Sample[] = [];
  const counts: LoadCounts = { spans: 0, runs: 0, traceIds: [], failedBatches: 0 };
  const started = Date.now();
  const sampler = everyTenSeconds(started, minutes, async (k) => {
    const rss = Object.fromEntries(names.map((n) => [n, rssMb(svc(n).pid())])) as Record<Name, number>;
    const own = await Promise.all(names.map((n) => ownMetrics(svc(n))));
    const heap = Object.fromEntries(names.map((n, i) => [n, own[i].heapMb])) as Record<Name, number>;
    const lag = Object.fromEntries(groups.map((g) => [g, own.reduce((n, o) => n + (o.lag[g] ?? 0), 0)])) as Lag;
    const scored = await scoredTraces().catch(() => Number.NaN);
    const x: Sample = { s: k * 10, rss, heap, lag, sentRuns: counts.runs, scored, load: loadavg()[0] };
    samples.push(x);
    console.log(`${x.s} s: RSS ${names.map((n) => `${n} ${rss[n].toFixed(0)}`).join(', ')} MB; heap used ${names.map((n) => `${n} ${heap[n].toFixed(0)}`).join(', ')} MB; lag ${groups.map((g) => `${g} ${lag[g]}`).join(', ')}; ${x.sentRuns} runs sent, ${scored} scored; load ${x.load.toFixed(1)}`);
  });
  await driveLoad({ collectorUrl: svc('collector').url, rate, minutes, started, keepTraceIds: true }, counts);
  const sentFor = (Date.now() - started) / 1000;
  await sampler;

  // Every sent trace scored: wait for the count, then compare the sets exactly.
  const drainStart = Date.now();
  let scored = await scoredTraces();
  while (scored < counts.traceIds.length && Date.now() - drainStart < DRAIN_BOUND_MS) {
    await sleep(2_000);
    scored = await scoredTraces();
  }
  const drainS = (Date.now() - drainStart) / 1000;
  const ids = new Set((await query(`SELECT DISTINCT unit_id FROM ${database}.scores WHERE unit_kind = 'trace' FORMAT TabSeparated`)).split('\n').filter(Boolean));
  const missing = counts.traceIds.filter((id) => !ids.has(id)).length;
  const sent = new Set(counts.traceIds);
  const extra = [...ids].filter((id) => !sent.has(id)).length;
  const scoreRows = Number((await query(`SELECT count() FROM ${database}.scores FINAL WHERE unit_kind = 'trace'`)).trim());
  const loadAtEnd = loadAverages();
  const gcLines = gcTraced.map((n) => {
    const gcs = fullGcs(n, started).filter((g) => g.s >= 0 && g.s <= minutes * 60);
    const settled = gcs.filter((g) => g.s >= settledFrom * 60);
    const range = settled.length > 0 ? `${Math.min(...settled.map((g) => g.afterMb)).toFixed(0)}–${Math.max(...settled.map((g) => g.afterMb)).toFixed(0)} MB` : 'none';
    return `${n}: ${gcs.length} full GCs; heap after each (MB, at min): ${gcs.map((g) => `${g.afterMb.toFixed(0)}@${(g.s / 60).toFixed(1)}`).join(' ')}; from ${settledFrom} min ${settled.length} of them, ${range}, slope ${slopePerMinute(settled, (g) => g.afterMb, settledFrom * 60).toFixed(2)} MB/min.`;
  });

  const at = (s: number): Sample => samples.find((x) => x.s >= s) ?? samples.at(-1)!;
  const marks = Array.from({ length: minutes + 1 }, (_, m) => m * 60);
  const slopes = (fromS: number): string => names.map((n) => `${n} ${slopePerMinute(samples, (x) => x.rss[n], fromS).toFixed(2)}`).join(', ');
  const heapSlopes = (fromS: number): string => names.map((n) => `${n} ${slopePerMinute(samples, (x) => x.heap[n], fromS).toFixed(2)}`).join(', ');
  const table = [
    `## ${new Date().toISOString()} – Kafka + ClickHouse, four services (${root ? `${root}/dist` : 'dist/'}, one process each), ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
    '',
    `Offered ${rate.toLocaleString('en-US')} spans/s for ${minutes} min${sessionIdleMs === 15 * 60_000 ? '' : ` (session idle time ${sessionIdleMs / 1000} s)`}; sent ${Math.round(counts.spans / sentFor).toLocaleString('en-US')} spans/s (${counts.runs.toLocaleString('en-US')} runs, each its own conversation; ${counts.failedBatches} batches failed to export, their traces not counted; checks loop_guard, function_result_present). Load generator in this process on the same cores, Kafka and ClickHouse too. Load average (1, 5, 15 min) at start ${loadAtStart}, at end ${loadAtEnd}; 1-min load ${Math.min(...samples.map((x) => x.load)).toFixed(1)}–${Math.max(...samples.map((x) => x.load)).toFixed(1)} during the run.`,
    '',
    '| time | collector RSS | assembler RSS | scorer RSS | api RSS | JS heap used: collector / assembler / scorer / api | lag (records): assembler / session router / sessions / scorer | runs sent | traces scored |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...marks
      .map((s) => at(s))
      .map((x) => `| ${x.s / 60} min | ${names.map((n) => `${x.rss[n].toFixed(0)} MB`).join(' | ')} | ${names.map((n) => x.heap[n].toFixed(0)).join(' / ')} MB | ${groups.map((g) => x.lag[g].toLocaleString('en-US')).join(' / ')} | ${x.sentRuns.toLocaleString('en-US')} | ${x.scored.toLocaleString('en-US')} |`),
    '',
    ...names.map((n) => `${n} RSS every 10 s (MB): ${samples.map((x) => x.rss[n].toFixed(0)).join(' ')}`).flatMap((l) => [l, '']),
    `RSS slope over the last half (${minutes / 2}–${minutes} min, least squares on the 10 s samples, MB/min): ${slopes((minutes * 60) / 2)}.`,
    ...(gcLines.length > 0 ? ['', 'Heap after full GCs (V8 --trace-gc; what stays live):', '', ...gcLines.map((l) => `- ${l}`)] : []),
    ...(minutes > settledFrom ? ['', `RSS slope over ${settledFrom}–${minutes} min (after the session idle time, MB/min): ${slopes(settledFrom * 60)}. JS heap used over the same window (MB/min): ${heapSlopes(settledFrom * 60)}.`] : []),
    '',
    `Every sent trace scored: ${missing === 0 && extra === 0 ? 'yes' : 'NO'} – ${counts.traceIds.length.toLocaleString('en-US')} traces sent, ${ids.size.toLocaleString('en-US')} scored (${missing} missing, ${extra} not sent), ${scoreRows.toLocaleString('en-US')} score rows after deduplication (2 checks a trace: ${(2 * counts.traceIds.length).toLocaleString('en-US')} expected); the last scored ${drainS.toFixed(0)} s after the load stopped.`,
    '',
  ].join('\n');
  const out = join(import.meta.dirname, 'results', 'kafka-soak.md');
  if (!existsSync(out)) appendFileSync(out, '# Kafka soak\n\nThe four services on Kafka + ClickHouse, each its own process, under a steady load: each service\'s RSS over time (`npm run bench:soak-kafka`).\n\n');
  appendFileSync(out, `${table}\n`);
  console.log(`\n${table}`);
} finally {
  for (const s of services.values()) await s.stop();
  for (const n of gcTraced) rmSync(gcLog(n), { force: true });
  await query(`DROP DATABASE IF EXISTS ${database}`, 300_000).catch((err: unknown) => console.error(`could not drop ${database}: ${String(err)}`));
  await deleteTopics().catch((err: unknown) => console.error(`could not delete the topics of ${prefix}: ${String(err)}`));
}
process.exit(0);
