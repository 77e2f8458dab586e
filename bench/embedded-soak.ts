// Embedded `tracecheck up` (the built dist/, its own process) under a steady span rate for a while,
// its RSS sampled every 10 s: does memory stay flat? The load generator (bench/soak-load.ts, shared
// with bench/kafka-soak.ts: the real OTel SDK and OTLP/protobuf exporter, as in bench/e2e.ts) runs
// in this process, so the RSS measured is tracecheck's alone.
// `npm run build && npm run bench:soak [-- --minutes 10 --rate 2000 --root DIR]`; appended to
// bench/results/embedded-soak.md. `--node-args "--flag ..."` passes V8 flags to it. `--root` runs another build's bin/ and dist/ (a before/after pair
// on one checkout); the table marks every minute and the least-squares slope over the run's last half.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuTimes, driveLoad, everyTenSeconds, loadAverages, median, rssMb, slopePerMinute, type LoadCounts } from './soak-load.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const minutes = arg('minutes', 10);
const rate = arg('rate', 2_000);
const rootAt = process.argv.indexOf('--root');
const root = rootAt >= 0 ? process.argv[rootAt + 1] : join(import.meta.dirname, '..');
/** V8 flags for the `tracecheck up` process (some, e.g. --heap-growing-percent, are refused in NODE_OPTIONS). */
const nodeArgsAt = process.argv.indexOf('--node-args');
const nodeArgs = nodeArgsAt >= 0 ? process.argv[nodeArgsAt + 1].split(' ').filter(Boolean) : [];
const dataDir = join(import.meta.dirname, '..', '.cache', `soak-${process.pid}`);
const base = 20_000 + Math.floor(Math.random() * 20_000);
const ports = { http: base, grpc: base + 1, api: base + 2, metrics: base + 3 };
mkdirSync(dataDir, { recursive: true });

const child = spawn(process.execPath, [...nodeArgs, join(root, 'bin', 'tracecheck.mjs'), 'up'], {
  env: {
    ...process.env,
    TRACECHECK_DATA_DIR: dataDir,
    TRACECHECK_HOST: '127.0.0.1',
    TRACECHECK_OTLP_HTTP_PORT: String(ports.http),
    TRACECHECK_OTLP_GRPC_PORT: String(ports.grpc),
    TRACECHECK_API_PORT: String(ports.api),
    TRACECHECK_METRICS_PORT: String(ports.metrics),
    TRACECHECK_CHECKS: 'loop_guard,function_result_present',
    TRACECHECK_LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
// Never leave it running when this script ends early.
process.on('exit', () => child.kill('SIGKILL'));
const collectorUrl = `http://127.0.0.1:${ports.http}`;
const api = `http://127.0.0.1:${ports.api}`;

/**
 * From tracecheck's own metrics: the JS heap in use and its capacity, DuckDB's buffer pool (the
 * rest of RSS is Node, DuckDB's other allocations, buffers), and what the bus holds in memory and
 * on disk over all topics.
 */
async function ownMetrics(): Promise<{ heapMb: number; heapTotalMb: number; duckMb: number; busInMemory: number; busLogMb: number }> {
  const text = await (await fetch(`${api}/metrics`)).text();
  const one = (name: string): number => {
    const x = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return x ? Number(x[1]) / 2 ** 20 : Number.NaN;
  };
  const sum = (name: string): number => [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce((n, x) => n + Number(x[1]), 0);
  return { heapMb: one('tracecheck_nodejs_heap_size_used_bytes'), heapTotalMb: one('tracecheck_nodejs_heap_size_total_bytes'), duckMb: one('tracecheck_store_memory_bytes'), busInMemory: sum('tracecheck_bus_records_in_memory'), busLogMb: sum('tracecheck_bus_log_bytes') / 2 ** 20 };
}

/**
 * Latency of the trace scores written in the last 10 s: each one's `created_at_ms` less its
 * trace's end (what a user waits from an agent run's last span to its score; the trace's closing
 * wait included). At most 1,000 of them, newest first.
 */
async function recentLatenciesS(nowMs: number): Promise<number[]> {
  const res = await fetch(`${api}/api/v1/scores?unit_kind=trace&check=loop_guard&limit=1000&from=${nowMs - 10_000}`);
  const body = (await res.json()) as { scores: Array<{ created_at_ms: number; unit_end_time_ms: number }> };
  return body.scores.map((x) => (x.created_at_ms - x.unit_end_time_ms) / 1000);
}

async function scoredUnits(): Promise<number> {
  const res = await fetch(`${api}/api/v1/checks/summary?from=0`);
  const body = (await res.json()) as { checks: Array<{ total: number }> };
  return body.checks.reduce((n, c) => n + c.total, 0) / 2;
}

for (let i = 0; ; i++) {
  if (i > 600) throw new Error('tracecheck up did not start within 60 s');
  const ok = await fetch(`${api}/openapi.json`).then((r) => r.ok, () => false);
  if (ok) break;
  await sleep(100);
}

const samples: Array<{ s: number; rssMb: number; heapMb: number; heapTotalMb: number; duckMb: number; busInMemory: number; busLogMb: number; sentSpans: number; scored: number; load: number; cpuMainMs: number; cpuOtherMs: number; latencyS: number }> = [];
const loadAtStart = loadAverages();
const started = Date.now();
const counts: LoadCounts = { spans: 0, runs: 0, traceIds: [], failedBatches: 0 };
const sampler = everyTenSeconds(started, minutes, async (k) => {
  // CPU and spans first, together: the sample's own queries below cost tracecheck CPU too.
  const cpu = cpuTimes(child.pid);
  const sentSpans = counts.spans;
  samples.push({ s: k * 10, rssMb: rssMb(child.pid), cpuMainMs: cpu.mainMs, cpuOtherMs: cpu.otherMs, sentSpans, ...(await ownMetrics()), latencyS: median(await recentLatenciesS(Date.now())), scored: await scoredUnits(), load: loadavg()[0] });
  const last = samples.at(-1)!;
  const minuteAgo = samples.find((x) => x.s >= last.s - 60)!;
  const perSpan = cpuPerSpan(minuteAgo, last);
  if (last.s % 60 === 0) console.log(`--- ${last.s / 60} min: RSS ${last.rssMb.toFixed(0)} MB, DuckDB ${last.duckMb.toFixed(0)} MB, JS heap ${last.heapMb.toFixed(0)} MB, bus log ${last.busLogMb.toFixed(1)} MB, CPU ${perSpan.total.toFixed(3)} ms/span (main ${perSpan.main.toFixed(3)}, other threads ${perSpan.other.toFixed(3)}), latency ${last.latencyS.toFixed(2)} s`);
  console.log(`${last.s} s: CPU ${perSpan.total.toFixed(3)} ms/span over the last minute, median latency ${last.latencyS.toFixed(2)} s, RSS ${last.rssMb.toFixed(0)} MB, heap used ${last.heapMb.toFixed(0)} of ${last.heapTotalMb.toFixed(0)} MB, DuckDB ${last.duckMb.toFixed(0)} MB, bus ${last.busInMemory} records in memory, ${last.busLogMb.toFixed(1)} MB on disk, ${last.sentSpans} spans sent, ${last.scored} runs scored, load ${last.load.toFixed(1)}`);
});
/** CPU ms per span sent between two samples: all threads, the main (JS) thread, the others (DuckDB's among them). */
function cpuPerSpan(from: (typeof samples)[number], to: (typeof samples)[number]): { total: number; main: number; other: number } {
  const spans = to.sentSpans - from.sentSpans;
  const main = (to.cpuMainMs - from.cpuMainMs) / spans;
  const other = (to.cpuOtherMs - from.cpuOtherMs) / spans;
  return { total: main + other, main, other };
}
await driveLoad({ collectorUrl, rate, minutes, started }, counts);
await sampler;
const sentFor = (Date.now() - started) / 1000;
const loadAtEnd = loadAverages();
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });

const at = (s: number) => samples.find((x) => x.s >= s) ?? samples.at(-1)!;
const marks = Array.from({ length: minutes + 1 }, (_, m) => m * 60);
/** Least-squares slope in MB/min of one series over the samples of the run's second half. */
const slope = (of: (x: (typeof samples)[number]) => number): number => slopePerMinute(samples, of, (minutes * 60) / 2);
/** Per minute from 1 min: CPU per span over the minute before the mark, and the median latency of the mark's samples. */
const perMinute = marks.slice(1).map((s) => {
  const window = samples.filter((x) => x.s > s - 60 && x.s <= s);
  return { s, cpu: cpuPerSpan(at(s - 60), at(s)), latencyS: median(window.map((x) => x.latencyS).filter(Number.isFinite)), coreShare: (at(s).cpuMainMs + at(s).cpuOtherMs - at(s - 60).cpuMainMs - at(s - 60).cpuOtherMs) / ((at(s).s - at(s - 60).s) * 1000) };
});
/** Least-squares slope per minute over the per-minute figures from minute 2 on (minute 1 holds the start-up). */
const perMinuteSlope = (of: (x: (typeof perMinute)[number]) => number): number => slopePerMinute(perMinute.filter((x) => x.s >= 120), of, 0);
const cpuAt = (m: number) => perMinute.find((x) => x.s === m * 60)?.cpu.total ?? Number.NaN;
const cpuDrift = ((cpuAt(minutes) / cpuAt(2) - 1) * 100).toFixed(0);
const slopes = [
  `Slope over the last half (${minutes / 2}–${minutes} min, least squares on the 10 s samples): RSS ${slope((x) => x.rssMb).toFixed(1)} MB/min, JS heap used ${slope((x) => x.heapMb).toFixed(1)} MB/min, DuckDB ${slope((x) => x.duckMb).toFixed(1)} MB/min, bus log on disk ${slope((x) => x.busLogMb).toFixed(1)} MB/min.`,
  '',
  `CPU per span (all threads, CPU time over spans sent in each minute) at 2 min ${cpuAt(2).toFixed(3)} ms, at ${minutes} min ${cpuAt(minutes).toFixed(3)} ms (${cpuDrift}%); slope over 2–${minutes} min (least squares on the per-minute figures): ${(perMinuteSlope((x) => x.cpu.total) * 1000).toFixed(1)} µs/span per minute (main thread ${(perMinuteSlope((x) => x.cpu.main) * 1000).toFixed(1)}, other threads ${(perMinuteSlope((x) => x.cpu.other) * 1000).toFixed(1)}); median latency ${(perMinuteSlope((x) => x.latencyS) * 1000).toFixed(1)} ms per minute.`,
].join('\n');
const table = [
  `## ${new Date().toISOString()} – embedded \`tracecheck up\` (dist/, own process), ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Offered ${rate.toLocaleString('en-US')} spans/s for ${minutes} min${nodeArgs.length ? ` (node ${nodeArgs.join(' ')})` : ''}; accepted ${Math.round(counts.spans / sentFor).toLocaleString('en-US')} spans/s (${counts.runs.toLocaleString('en-US')} runs; ${counts.failedBatches} batches failed to export). Load generator in another process on the same cores; load average (1, 5, 15 min) at start ${loadAtStart}, at end ${loadAtEnd}; 1-min load average ${samples.map((x) => x.load).reduce((a, b) => Math.min(a, b)).toFixed(1)}–${samples.map((x) => x.load).reduce((a, b) => Math.max(a, b)).toFixed(1)} during the run.`,
  '',
  '| time | CPU per span: all / main / other threads | CPU (cores) | median latency | RSS | JS heap used / total | DuckDB buffer pool | bus: records in memory | bus: log on disk | spans sent | runs scored |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...marks.map((s) => at(s)).map((x) => {
    const m = perMinute.find((p) => p.s === x.s);
    const cpu = m ? `${m.cpu.total.toFixed(3)} / ${m.cpu.main.toFixed(3)} / ${m.cpu.other.toFixed(3)} ms | ${m.coreShare.toFixed(2)} | ${m.latencyS.toFixed(2)} s` : '– | – | –';
    return `| ${x.s / 60} min | ${cpu} | ${x.rssMb.toFixed(0)} MB | ${x.heapMb.toFixed(0)} / ${x.heapTotalMb.toFixed(0)} MB | ${x.duckMb.toFixed(0)} MB | ${x.busInMemory.toLocaleString('en-US')} | ${x.busLogMb.toFixed(1)} MB | ${x.sentSpans.toLocaleString('en-US')} | ${x.scored.toLocaleString('en-US')} |`;
  }),
  '',
  `Every 10 s (MB): ${samples.map((x) => x.rssMb.toFixed(0)).join(' ')}`,
  '',
  `DuckDB every 10 s (MB): ${samples.map((x) => x.duckMb.toFixed(0)).join(' ')}`,
  '',
  slopes,
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'embedded-soak.md');
if (!existsSync(out)) appendFileSync(out, '# Embedded soak\n\n`tracecheck up` in embedded mode under a steady load: RSS over time.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
process.exit(0);
