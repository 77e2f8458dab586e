// The whole pipeline under load: agent runs sent through the real OTel SDK and OTLP/protobuf
// exporter (test/helpers/agent-runs.ts: 4 spans a run, 10 when it loops; 1 in 10 loops), scored with
// the deterministic loop_guard and function_result_present checks.
//  - rate: runs sent at a fixed span rate for a while; latency from a sampled run's export to its
//    scores being queryable through the API (p50/p95/p99).
//  - max: N runs sent as fast as the exporter goes; accepted and *scored* spans per second.
// `npm run bench:e2e [-- embedded|kafka] [--max-only]` (kafka = Kafka + ClickHouse from scripts/infra.sh);
// TRACECHECK_BUS_FSYNC=false in the environment measures the embedded bus without its fsync.
// `--cpu-prof` profiles the max phase (bench/profile-window.ts): top functions, busy share, threads'
// CPU; the .cpuprofile goes to .cache/ and nothing is appended to the results.
// Results are appended to bench/results/e2e.md, with the assembler's RSS at 50,000 open traces
// (bench/assembler-memory.ts, in a child process of its own with --expose-gc; `--no-memory` skips it).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startProfileWindow } from './profile-window.ts';
import { runsOf, sendRuns, type RunSpec } from '../test/helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName } from '../test/helpers/infra.ts';
import { startPipeline } from '../test/helpers/pipeline-harness.ts';

const mode = process.argv[2] === 'kafka' ? 'kafka' : 'embedded';
const cpuProf = process.argv.includes('--cpu-prof');
const RATES = process.argv.includes('--max-only') || cpuProf ? [] : [500, 2_000];
const busFsync = process.env.TRACECHECK_BUS_FSYNC ?? 'true';
const RATE_SECONDS = 20;
const MAX_RUNS = 3_000;
const CHECKS = 2;
const database = uniqueName('bench_e2e');
const env: Record<string, string> =
  mode === 'kafka' ? { TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: database } : { TRACECHECK_BUS_FSYNC: busFsync };
// The scorer's concurrency (its store batches) can be set from the environment, to compare.
if (process.env.TRACECHECK_SCORER_CONCURRENCY) env.TRACECHECK_SCORER_CONCURRENCY = process.env.TRACECHECK_SCORER_CONCURRENCY;
const h = await startPipeline({ ...env, TRACECHECK_CHECKS: 'loop_guard,function_result_present', TRACECHECK_TRACE_GRACE_MS: '2000' });
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

/** Polls sampled runs every 100 ms and records when their scores become queryable. */
function startPoller(latencies: number[]) {
  const pending: Array<{ id: string; sentAt: number }> = [];
  let stop = false;
  const done = (async () => {
    while (!stop || pending.length > 0) {
      const now = [...pending];
      const visible = await Promise.all(
        now.map(async (p) => {
          const res = await fetch(`${api}/api/v1/units/${p.id}`);
          return res.status === 200 && ((await res.json()) as { scores: unknown[] }).scores.length >= CHECKS;
        }),
      );
      now.forEach((p, k) => {
        if (!visible[k]) return;
        latencies.push(Date.now() - p.sentAt);
        pending.splice(pending.indexOf(p), 1);
      });
      await sleep(100);
    }
  })();
  return { add: (id: string, sentAt: number) => pending.push({ id, sentAt }), finish: () => ((stop = true), done) };
}

for (const rate of RATES) {
  const latencies: number[] = [];
  const poller = startPoller(latencies);
  const started = Date.now();
  let spans = 0;
  let tick = 0;
  // Every 200 ms a batch of runs worth rate/5 spans; the first run of every batch is sampled.
  while (Date.now() - started < RATE_SECONDS * 1000) {
    const runs = runsOf('bench-agent', 'v1', Math.max(1, Math.round(rate / 5 / 4.6)), 0).map((r, i) => ({ ...r, loops: i % 10 === 0 }));
    const ids = await sendRuns(runs, { collectorUrl });
    poller.add(ids[0], Date.now());
    spans += spansOf(runs);
    total += runs.length;
    tick += 1;
    const wait = started + tick * 200 - Date.now();
    if (wait > 0) await sleep(wait);
  }
  const sentFor = (Date.now() - started) / 1000;
  const done = await waitScored(total, 120_000);
  await poller.finish();
  rows.push(`| ${rate.toLocaleString('en-US')} spans/s for ${RATE_SECONDS} s | ${Math.round(spans / sentFor).toLocaleString('en-US')} | ${done ? 'all' : 'NOT all within 120 s'} | ${Math.round(pct(latencies, 50))} / ${Math.round(pct(latencies, 95))} / ${Math.round(pct(latencies, 99))} ms (${latencies.length} sampled) |`);
  console.log(rows.at(-1));
}

{
  const runs = runsOf('bench-agent', 'v2', MAX_RUNS, MAX_RUNS / 10);
  const profileDir = join(import.meta.dirname, '..', '.cache');
  if (cpuProf) mkdirSync(profileDir, { recursive: true });
  const profile = cpuProf ? await startProfileWindow(join(profileDir, `e2e-max-${Date.now()}.cpuprofile`)) : null;
  const t0 = Date.now();
  await sendRuns(runs, { collectorUrl });
  const accepted = spansOf(runs) / ((Date.now() - t0) / 1000);
  total += runs.length;
  const done = await waitScored(total, 300_000);
  const scored = done ? spansOf(runs) / ((done - t0) / 1000) : Number.NaN;
  if (profile) console.log(await profile.stop());
  rows.push(`| max: ${MAX_RUNS.toLocaleString('en-US')} runs at once | ${Math.round(accepted).toLocaleString('en-US')} | ${Math.round(scored).toLocaleString('en-US')} spans/s scored | – |`);
  console.log(rows.at(-1));
}
await h.stop();
if (cpuProf) process.exit(0);
if (!process.argv.includes('--no-memory')) {
  const out = execFileSync(process.execPath, ['--expose-gc', join(import.meta.dirname, '..', 'bin', 'run-ts.mjs'), join(import.meta.dirname, 'assembler-memory.ts')], { encoding: 'utf8' });
  const rss = /^\| RSS \| (.+) \| (.+) \|$/m.exec(out);
  rows.push(`| assembler, 50,000 open traces of 9 GenAI spans (bench:assembler-memory) | RSS ${rss?.[1] ?? '?'} | ${rss?.[2] ?? '?'} per open trace | – |`);
  console.log(rows.at(-1));
}
if (mode === 'kafka') await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' }).catch(() => undefined);

const table = [
  `## ${new Date().toISOString()} – ${mode === 'kafka' ? 'Kafka + ClickHouse' : `embedded (in-process bus on disk, fsync ${busFsync === 'false' ? 'off' : 'on'}, + DuckDB)`}, ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  'Load generator, collector, assembler, scorer and API in one process (the load generator takes its share of the 2 cores); trace grace 2 s.',
  '',
  '| offered | accepted spans/s | scored | export → scores queryable p50 / p95 / p99 |',
  '|---|---:|---|---|',
  ...rows,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'e2e.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# End-to-end benchmark\n\nOTel SDK → collector → bus → assembler → scorer → store → API, under load.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
process.exit(0);
