// What the soak benches share: the steady load (agent runs through the real OTel SDK and
// OTLP/protobuf exporter, 4 spans a run, 10 when it loops, 1 in 10 loops; every run its own
// conversation), a process's RSS, and the least-squares slope of a series. Used by
// bench/embedded-soak.ts and bench/kafka-soak.ts.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { runsOf, sendRuns, type RunSpec } from '../test/helpers/agent-runs.ts';

/** A process's resident set in MB, from /proc/<pid>/status (NaN once it is gone). */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The 1, 5 and 15-minute load averages as `uptime` prints them. */
export function loadAverages(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
}

/** What the load sent so far; `traceIds` only when asked for (a check that every trace was scored). */
export interface LoadCounts {
  spans: number;
  runs: number;
  traceIds: string[];
  /** Batches whose export failed (their runs are in no count: some of their spans may have landed). */
  failedBatches: number;
}

const spansOf = (runs: readonly RunSpec[]): number => runs.reduce((n, r) => n + (r.loops ? 10 : 4), 0);

/**
 * Sends `rate` spans/s from `started` for `minutes`: every 200 ms a batch of runs worth rate/5 spans
 * (a batch that takes longer is not caught up). `counts` is updated as batches are acknowledged.
 */
export async function driveLoad(options: { collectorUrl: string; rate: number; minutes: number; started: number; keepTraceIds?: boolean }, counts: LoadCounts): Promise<void> {
  for (let tick = 1; Date.now() - options.started < options.minutes * 60_000; tick++) {
    const batch = runsOf('soak-agent', 'v1', Math.max(1, Math.round(options.rate / 5 / 4.6)), 0).map((r, i) => ({ ...r, loops: i % 10 === 0 }));
    // At load 26 the SDK's flush once took over 30 s ("Span processor did not complete within
    // timeout"), which ended a 60-minute soak at 28 min: a failed batch is counted, and the load goes on.
    try {
      const ids = await sendRuns(batch, { collectorUrl: options.collectorUrl });
      if (options.keepTraceIds) counts.traceIds.push(...ids);
      counts.spans += spansOf(batch);
      counts.runs += batch.length;
    } catch (err) {
      counts.failedBatches += 1;
      console.error(`a batch of ${batch.length} runs failed: ${String(err)}`);
    }
    const wait = options.started + tick * 200 - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

/**
 * Calls `sample(k)` at `started + k·10 s` for k = 0 … minutes·6 (a sample that runs late delays
 * the next one only if it overruns its slot).
 */
export async function everyTenSeconds(started: number, minutes: number, sample: (k: number) => Promise<void>): Promise<void> {
  for (let k = 0; k <= minutes * 6; k++) {
    const at = started + k * 10_000;
    if (at > Date.now()) await sleep(at - Date.now());
    await sample(k);
  }
}

/** Least-squares slope, in units per minute, of `of(x)` against `x.s` (seconds) over the samples with fromS ≤ s ≤ toS. */
export function slopePerMinute<T extends { s: number }>(samples: readonly T[], of: (x: T) => number, fromS: number, toS = Number.POSITIVE_INFINITY): number {
  const window = samples.filter((x) => x.s >= fromS && x.s <= toS && Number.isFinite(of(x)));
  const mx = window.reduce((n, x) => n + x.s, 0) / window.length;
  const my = window.reduce((n, x) => n + of(x), 0) / window.length;
  const cov = window.reduce((n, x) => n + (x.s - mx) * (of(x) - my), 0);
  const varX = window.reduce((n, x) => n + (x.s - mx) ** 2, 0);
  return varX === 0 ? Number.NaN : (cov / varX) * 60;
}

/** CPU time a process has used so far, in ms: its main (JS) thread and all its other threads (DuckDB's, libuv's, V8's helpers). */
export interface CpuTimes {
  mainMs: number;
  otherMs: number;
}

/** Clock ticks of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** utime + stime of one /proc/…/stat line, in ms (fields 14 and 15, counted after the command name, which may hold spaces). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * A process's CPU time, from /proc/<pid>/stat (all threads, the ones that ended included) and
 * /proc/<pid>/task/<pid>/stat (the main thread); NaN once it is gone. CPU time, unlike wall time,
 * barely moves when other processes share the cores.
 */
export function cpuTimes(pid: number | undefined): CpuTimes {
  if (pid === undefined) return { mainMs: Number.NaN, otherMs: Number.NaN };
  try {
    const all = statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const main = statCpuMs(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    return { mainMs: main, otherMs: all - main };
  } catch {
    return { mainMs: Number.NaN, otherMs: Number.NaN };
  }
}

/** The median of some numbers (NaN when there are none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
