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
import { driveLoad, everyTenSeconds, loadAverages, rssMb, slopePerMinute, type LoadCounts } from './soak-load.ts';

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

const samples: Array<{ s: number; rssMb: number; heapMb: number; heapTotalMb: number; duckMb: number; busInMemory: number; busLogMb: number; sentSpans: number; scored: number; load: number }> = [];
const loadAtStart = loadAverages();
const started = Date.now();
const counts: LoadCounts = { spans: 0, runs: 0, traceIds: [], failedBatches: 0 };
const sampler = everyTenSeconds(started, minutes, async (k) => {
  samples.push({ s: k * 10, rssMb: rssMb(child.pid), ...(await ownMetrics()), sentSpans: counts.spans, scored: await scoredUnits(), load: loadavg()[0] });
  const last = samples.at(-1)!;
  if (last.s % 60 === 0) console.log(`--- ${last.s / 60} min: RSS ${last.rssMb.toFixed(0)} MB, DuckDB ${last.duckMb.toFixed(0)} MB, JS heap ${last.heapMb.toFixed(0)} MB, bus log ${last.busLogMb.toFixed(1)} MB`);
  console.log(`${last.s} s: RSS ${last.rssMb.toFixed(0)} MB, heap used ${last.heapMb.toFixed(0)} of ${last.heapTotalMb.toFixed(0)} MB, DuckDB ${last.duckMb.toFixed(0)} MB, bus ${last.busInMemory} records in memory, ${last.busLogMb.toFixed(1)} MB on disk, ${last.sentSpans} spans sent, ${last.scored} runs scored, load ${last.load.toFixed(1)}`);
});
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
const slopes = `Slope over the last half (${minutes / 2}–${minutes} min, least squares on the 10 s samples): RSS ${slope((x) => x.rssMb).toFixed(1)} MB/min, JS heap used ${slope((x) => x.heapMb).toFixed(1)} MB/min, DuckDB ${slope((x) => x.duckMb).toFixed(1)} MB/min, bus log on disk ${slope((x) => x.busLogMb).toFixed(1)} MB/min.`;
const table = [
  `## ${new Date().toISOString()} – embedded \`tracecheck up\` (dist/, own process), ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Offered ${rate.toLocaleString('en-US')} spans/s for ${minutes} min${nodeArgs.length ? ` (node ${nodeArgs.join(' ')})` : ''}; accepted ${Math.round(counts.spans / sentFor).toLocaleString('en-US')} spans/s (${counts.runs.toLocaleString('en-US')} runs; ${counts.failedBatches} batches failed to export). Load generator in another process on the same cores; load average (1, 5, 15 min) at start ${loadAtStart}, at end ${loadAtEnd}; 1-min load average ${samples.map((x) => x.load).reduce((a, b) => Math.min(a, b)).toFixed(1)}–${samples.map((x) => x.load).reduce((a, b) => Math.max(a, b)).toFixed(1)} during the run.`,
  '',
  '| time | RSS | JS heap used / total | DuckDB buffer pool | bus: records in memory | bus: log on disk | spans sent | runs scored |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...marks.map((s) => at(s)).map((x) => `| ${x.s / 60} min | ${x.rssMb.toFixed(0)} MB | ${x.heapMb.toFixed(0)} / ${x.heapTotalMb.toFixed(0)} MB | ${x.duckMb.toFixed(0)} MB | ${x.busInMemory.toLocaleString('en-US')} | ${x.busLogMb.toFixed(1)} MB | ${x.sentSpans.toLocaleString('en-US')} | ${x.scored.toLocaleString('en-US')} |`),
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
