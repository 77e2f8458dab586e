// The whole pipeline under load: agent runs sent through the real OTel SDK and OTLP/protobuf
// exporter (test/helpers/agent-runs.ts: 4 spans a run, 10 when it loops; 1 in 10 loops), scored with
// the deterministic loop_guard and function_result_present checks.
//  - rate: runs sent at a fixed span rate for a while; latency from a sampled run's export to its
//    unit and scores being in the store the API reads (p50/p95/p99), polled every 20 ms.
//  - max: N runs sent as fast as the exporter goes; accepted and *scored* spans per second.
// `npm run bench:e2e [-- embedded|kafka] [--max-only] [--no-max] [--rate=2000] [--seconds=20] [--max-runs=3000] [--stages]`
// (kafka = Kafka + ClickHouse from scripts/infra.sh; --stages: a per-stage breakdown, stage-probe.ts);
// `kafka --cluster`: ClickHouse is instead a replicated cluster of the bench's own (ZooKeeper and two
// 18.16 replicas of one shard, test/helpers/private-cluster.ts; TRACECHECK_TEST_KAFKA_LIBS as for the
// tests), the services given both replicas' URLs; latency is polled on the first replica (the one the
// services write and the API reads), `--poll-replica=2` on the other (replication lag included).
// TRACECHECK_BUS_FSYNC=false in the environment measures the embedded bus without its fsync.
// `--cpu-prof` profiles the max phase (bench/profile-window.ts): top functions, busy share, threads'
// CPU; the .cpuprofile goes to .cache/ and nothing is appended to the results.
// Results are appended to bench/results/e2e.md, with the assembler's RSS at 50,000 open traces
// (bench/assembler-memory.ts, in a child process of its own with --expose-gc; `--no-memory` skips it).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startProfileWindow } from './profile-window.ts';
import { runsOf, sendRuns, type RunSpec } from '../test/helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../test/helpers/infra.ts';
import { startPipeline } from '../test/helpers/pipeline-harness.ts';
import { CLUSTER_NAME, startPrivateCluster } from '../test/helpers/private-cluster.ts';
import { installStageProbe, stageTable } from './stage-probe.ts';

const mode = process.argv[2] === 'kafka' ? 'kafka' : 'embedded';
const cpuProf = process.argv.includes('--cpu-prof');
const flag = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const onlyRate = flag('rate');
const RATES = process.argv.includes('--max-only') || cpuProf ? [] : onlyRate ? [Number(onlyRate)] : [500, 2_000];
const stages = process.argv.includes('--stages');
if (stages) installStageProbe();
const busFsync = process.env.TRACECHECK_BUS_FSYNC ?? 'true';
const RATE_SECONDS = Number(flag('seconds') ?? 20);
/** Sampled runs per batch of 200 ms: the first and the last of it (about 200 in 20 s). */
const SAMPLES_PER_BATCH = 2;
/** Runs sent at once in the max phase; `--max-runs=N` for a longer one (sustained rather than a burst and its tail). */
const MAX_RUNS = Number(flag('max-runs') ?? 3_000);
/** Runs handed to the SDK exporter at a time: it refuses more concurrent exports than its limit. */
const RUNS_PER_SEND = 3_000;
const CHECKS = 2;
const database = uniqueName('bench_e2e');
const cluster = mode === 'kafka' && process.argv.includes('--cluster') ? await startPrivateCluster() : null;
const clusterUrls = cluster ? cluster.replicas.map((r) => r.url) : null;
/** Where the bench looks for scores: the shared server, or one replica of its own cluster. */
const pollUrl = clusterUrls ? (clusterUrls[flag('poll-replica') === '2' ? 1 : 0] ?? clusterUrls[0]) : testClickHouseUrl();
const clusterEnv: Record<string, string> = clusterUrls ? { TRACECHECK_CLICKHOUSE_URL: clusterUrls.join(','), TRACECHECK_CLICKHOUSE_CLUSTER: CLUSTER_NAME } : {};
/** What `uptime` shows: the 1-, 5- and 15-minute load averages at the start (8 engineers share the 2 cores). */
const uptimeAtStart = `load average: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`;
const env: Record<string, string> =
  mode === 'kafka' ? { TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: database, ...clusterEnv } : { TRACECHECK_BUS_FSYNC: busFsync };
// `--env=NAME=value`: a setting to try (e.g. --env=TRACECHECK_SCORER_CONCURRENCY=512); the scorer's
// concurrency can also be set from the environment, to compare.
const extraEnv = Object.fromEntries(process.argv.filter((a) => a.startsWith('--env=')).map((a) => [a.slice(6, a.indexOf('=', 6)), a.slice(a.indexOf('=', 6) + 1)]));
if (process.env.TRACECHECK_SCORER_CONCURRENCY) env.TRACECHECK_SCORER_CONCURRENCY = process.env.TRACECHECK_SCORER_CONCURRENCY;
const h = await startPipeline({ ...env, TRACECHECK_CHECKS: 'loop_guard,function_result_present', TRACECHECK_TRACE_GRACE_MS: '2000', ...extraEnv });
const collectorUrl = h.pipeline.collectorUrl();
const api = h.pipeline.apiUrl();
const spansOf = (runs: readonly RunSpec[]): number => runs.reduce((n, r) => n + (r.loops ? 10 : 4), 0);

async function scoredCount(): Promise<number> {
  const res = await fetch(`${api}/api/v1/checks/summary?from=0`);
  const body = (await res.json()) as { checks: Array<{ total: number }> };
  return body.checks.reduce((n, c) => n + c.total, 0) / CHECKS;
}

async function waitScored(expected: number, timeoutMs: number): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await scoredCount()) >= expected) return Date.now();
    await sleep(100);
  }
  return null;
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN;
const rows: string[] = [];
let total = 0;

const POLL_MS = 20;

/**
 * Whether each sampled unit and its scores are in the store, by one query for all of them (not one
 * API request per unit: that polling cost more than the pipeline itself and added its own round
 * time to every figure). On ClickHouse the tables the API's GET /units/{id} reads.
 */
async function visibleOf(ids: readonly string[]): Promise<Set<string>> {
  if (mode === 'kafka') {
    const list = ids.map((id) => `'${id.replace(/[^0-9a-f]/g, '')}'`).join(', ');
    const q = `SELECT unit_id FROM ${database}.score_revisions WHERE unit_id IN (${list}) AND unit_id IN (SELECT unit_id FROM ${database}.unit_revisions WHERE unit_id IN (${list})) GROUP BY unit_id HAVING count() >= ${CHECKS} FORMAT TSV`;
    const res = await fetch(`${pollUrl}/?query=${encodeURIComponent(q)}`);
    if (!res.ok) return new Set();
    return new Set((await res.text()).split('\n').filter(Boolean));
  }
  const store = h.pipeline.store!;
  const seen = await Promise.all(ids.map(async (id) => (await store.queryScores({ unitId: id, limit: 10 })).length >= CHECKS && (await store.getUnit(id)) !== null));
  return new Set(ids.filter((_, k) => seen[k]));
}

interface Sample {
  id: string;
  sentAt: number;
  visibleAt: number;
}

/** Every POLL_MS (after the previous round answered), one query for every sampled unit not yet seen. */
function startPoller(samples: Sample[], rounds: number[]) {
  const pending = new Map<string, number>();
  let stop = false;
  const done = (async () => {
    while (!stop || pending.size > 0) {
      if (pending.size > 0) {
        const t0 = Date.now();
        const seen = await visibleOf([...pending.keys()]);
        const at = Date.now();
        rounds.push(at - t0);
        // When the answer came: a conservative figure (the rows were visible by then, perhaps by up
        // to one round plus POLL_MS earlier).
        for (const id of seen) {
          samples.push({ id, sentAt: pending.get(id)!, visibleAt: at });
          pending.delete(id);
        }
      }
      await sleep(POLL_MS);
    }
  })();
  return { add: (id: string, sentAt: number) => pending.set(id, sentAt), finish: () => ((stop = true), done) };
}

const stageRows: string[] = [];
for (const rate of RATES) {
  const samples: Sample[] = [];
  const rounds: number[] = [];
  const poller = startPoller(samples, rounds);
  const loads: number[] = [loadavg()[0]];
  const loadTimer = setInterval(() => loads.push(loadavg()[0]), 5_000);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  let spans = 0;
  let tick = 0;
  // Every 200 ms a batch of runs worth rate/5 spans; its first and last runs are sampled.
  while (Date.now() - started < RATE_SECONDS * 1000) {
    const runs = runsOf('bench-agent', 'v1', Math.max(SAMPLES_PER_BATCH, Math.round(rate / 5 / 4.6)), 0).map((r, i) => ({ ...r, loops: i % 10 === 0 }));
    const ids = await sendRuns(runs, { collectorUrl });
    const sentAt = Date.now();
    poller.add(ids[0], sentAt);
    poller.add(ids[ids.length - 1], sentAt);
    spans += spansOf(runs);
    total += runs.length;
    tick += 1;
    const wait = started + tick * 200 - Date.now();
    if (wait > 0) await sleep(wait);
  }
  const sentFor = (Date.now() - started) / 1000;
  loopDelay.disable();
  const cpu = process.cpuUsage(cpu0);
  const proc = `this process ${Math.round((cpu.user + cpu.system) / 10 / sentFor / 1000)}% of a core, event loop delay p50 / p99 ${Math.round(loopDelay.percentile(50) / 1e6)} / ${Math.round(loopDelay.percentile(99) / 1e6)} ms`;
  const done = await waitScored(total, 120_000);
  await poller.finish();
  clearInterval(loadTimer);
  const latencies = samples.map((x) => x.visibleAt - x.sentAt);
  const load = `load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
  rows.push(`| ${rate.toLocaleString('en-US')} spans/s for ${RATE_SECONDS} s | ${Math.round(spans / sentFor).toLocaleString('en-US')} | ${done ? 'all' : 'NOT all within 120 s'} | ${Math.round(pct(latencies, 50))} / ${Math.round(pct(latencies, 95))} / ${Math.round(pct(latencies, 99))} ms (${latencies.length} sampled; poll round p50 ${pct(rounds, 50)} ms; ${load}; ${proc}) |`);
  console.log(rows.at(-1));
  if (stages) {
    stageRows.push('', `Where the time went at ${rate.toLocaleString('en-US')} spans/s (\`--stages\`: kafkajs and the ClickHouse client timestamped by trace id):`, '', ...stageTable(samples));
    console.log(stageRows.join('\n'));
  }
}

if (!process.argv.includes('--no-max')) {
  const runs = runsOf('bench-agent', 'v2', MAX_RUNS, MAX_RUNS / 10);
  const profileDir = join(import.meta.dirname, '..', '.cache');
  if (cpuProf) mkdirSync(profileDir, { recursive: true });
  const profile = cpuProf ? await startProfileWindow(join(profileDir, `e2e-max-${Date.now()}.cpuprofile`)) : null;
  const t0 = Date.now();
  for (let i = 0; i < runs.length; i += RUNS_PER_SEND) await sendRuns(runs.slice(i, i + RUNS_PER_SEND), { collectorUrl });
  const accepted = spansOf(runs) / ((Date.now() - t0) / 1000);
  total += runs.length;
  const done = await waitScored(total, 300_000);
  const scored = done ? spansOf(runs) / ((done - t0) / 1000) : Number.NaN;
  if (profile) console.log(await profile.stop());
  rows.push(`| max: ${MAX_RUNS.toLocaleString('en-US')} runs ${MAX_RUNS > RUNS_PER_SEND ? `sent ${RUNS_PER_SEND.toLocaleString('en-US')} at a time` : 'at once'} | ${Math.round(accepted).toLocaleString('en-US')} | ${Math.round(scored).toLocaleString('en-US')} spans/s scored | – |`);
  console.log(rows.at(-1));
}
await h.stop();
// Before the exit below: a profiled run leaves no database behind either.
if (mode === 'kafka' && !cluster) await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' }).catch(() => undefined);
await cluster?.destroy();
if (cpuProf) process.exit(0);
if (!process.argv.includes('--no-memory')) {
  const out = execFileSync(process.execPath, ['--expose-gc', join(import.meta.dirname, '..', 'bin', 'run-ts.mjs'), join(import.meta.dirname, 'assembler-memory.ts')], { encoding: 'utf8' });
  const rss = /^\| RSS \| (.+) \| (.+) \|$/m.exec(out);
  rows.push(`| assembler, 50,000 open traces of 9 GenAI spans (bench:assembler-memory) | RSS ${rss?.[1] ?? '?'} | ${rss?.[2] ?? '?'} per open trace | – |`);
  console.log(rows.at(-1));
}
const clusterNote = clusterUrls
  ? ` ClickHouse: two 18.16 replicas of one shard + ZooKeeper 3.8.4 (\`--cluster\`, insert quorum ${extraEnv.TRACECHECK_CLICKHOUSE_INSERT_QUORUM ?? process.env.TRACECHECK_CLICKHOUSE_INSERT_QUORUM ?? 'unset'}), polled on replica ${pollUrl === clusterUrls[1] ? 2 : 1}. \`uptime\` at start: ${uptimeAtStart}.`
  : '';

const table = [
  `## ${new Date().toISOString()} – ${mode === 'kafka' ? (clusterUrls ? 'Kafka + replicated ClickHouse' : 'Kafka + ClickHouse') : `embedded (in-process bus on disk, fsync ${busFsync === 'false' ? 'off' : 'on'}, + DuckDB)`}, ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Load generator, collector, assembler, scorer and API in one process (the load generator takes its share of the 2 cores); trace grace 2 s.${clusterNote}`,
  '',
  '| offered | accepted spans/s | scored | export → scores queryable p50 / p95 / p99 |',
  '|---|---:|---|---|',
  ...rows,
  ...stageRows,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'e2e.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# End-to-end benchmark\n\nOTel SDK → collector → bus → assembler → scorer → store → API, under load.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
process.exit(0);
