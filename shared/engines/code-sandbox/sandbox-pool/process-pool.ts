import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { createKeyedBreaker } from '../../../runtime/flow/index.ts';
import { pauseMessage } from './pause-message.ts';
import { createFairQueue } from './fair-queue.ts';
import { networkIsolation } from './network-isolation.ts';
import type { ProcessLimits } from './spawn-limited.ts';
import { spawnLimited } from './spawn-limited.ts';

/** One evaluation: `request` is JSON text the worker program understands. */
interface PoolJob {
  /** The project whose code this is: a process only ever runs one owner's jobs. */
  owner: string;
  /** Jobs of one owner and key share fairness and failure history (the sandboxes use a hash of the check's code). */
  key: string;
  request: string;
  timeoutMs: number;
}

export type PoolOutcome =
  /** The worker's reply line, without the protocol fields. */
  | { kind: 'reply'; message: Record<string, unknown> }
  /** The deadline passed: the process was killed (SIGKILL). */
  | { kind: 'timeout' }
  /** The process ended during the job; `stderr` is its last 4,000 characters. */
  | { kind: 'exit'; code: number | null; signal: string | null; stderr: string }
  /** Not run: the pool is closed, the key is paused, or processes do not start. */
  | { kind: 'refused'; error: string };

export interface ProcessPoolOptions {
  /** Names the pool in errors and logs ("code sandbox"). */
  name: string;
  /** Node arguments of a worker program (after the node binary). */
  args: readonly string[];
  limits: ProcessLimits;
  /** Processes at most, over all owners; they start on demand and are reused by their owner. */
  size: number;
  /** Processes at most per owner (default `size`). */
  perOwner?: number;
  /** Bound on a process's start-up (its ready line). */
  startTimeoutMs: number;
  /** A key is paused after this many process-costing failures in a row (default 3)… */
  breakerFailures?: number;
  /** …for this long (default 30,000 ms). */
  breakerCooldownMs?: number;
  log?: Logger;
  now?: () => number;
}

export interface ProcessPoolStats {
  /** Processes started so far. */
  starts: number;
  /** Start-up of each process as it measured it (its ready line's `startMs`). */
  startMs: number[];
}

export interface ProcessPool {
  run(job: PoolJob): Promise<PoolOutcome>;
  stats(): ProcessPoolStats;
  /** Process ids of the live workers. */
  pids(): number[];
  /** The live workers and the owner each serves. */
  processes(): { pid: number; owner: string }[];
  /** Refuses what waits, kills every process (SIGKILL) and resolves once they are gone. */
  close(): Promise<void>;
}

interface Waiting extends PoolJob {
  resolve: (outcome: PoolOutcome) => void;
}

interface Worker {
  /** The one owner whose jobs this process runs, from its start to its end. */
  owner: string;
  /** When it last finished a job (or became ready): the least recently used idle process is ended first. */
  lastUsed: number;
  proc: ChildProcessWithoutNullStreams;
  ready: boolean;
  job: (Waiting & { id: number; timer: NodeJS.Timeout }) | null;
  stderr: string;
  closed: Promise<void>;
}

/**
 * A pool of worker processes under OS limits speaking a line protocol: the worker writes
 * `{"ready": true, "startMs"}` once, then answers each stdin line `{"id", "request"}` with one
 * stdout line `{"id", "exiting"?, ...}` (`exiting`: it ends after this reply and takes no more).
 *
 * The parent never waits on a child beyond a deadline: a job's timer starts when it is written to
 * a ready process and SIGKILLs that process when it fires; a process that dies settles its job at
 * once; a replacement starts when work waits.
 *
 * Every process belongs to one owner (a project) for its whole life, so no process ever runs two
 * projects' code. An owner has at most `perOwner` processes and all owners together `size`; an
 * owner with work and no process of its own ends the least recently used idle process of another
 * owner when the pool is full. Waiting jobs are served round-robin by (owner, key); no key runs in
 * more than `perOwner - 1` of its owner's processes at once (so with two or more, one is always left
 * for the owner's other keys), a key whose last evaluation cost a process runs in one at a time, and
 * one that cost `breakerFailures` in a row is refused for a cool-down, for its owner only.
 */
export function createProcessPool(options: ProcessPoolOptions): ProcessPool {
  const now = options.now ?? Date.now;
  const size = Math.max(1, Math.floor(options.size));
  const perOwner = Math.min(size, Math.max(1, Math.floor(options.perOwner ?? size)));
  const workers: Worker[] = [];
  // Keyed by owner and key together: one project's failures never pause another's copy of a check.
  const queue = createFairQueue<Waiting>();
  const queueKey = (job: PoolJob): string => JSON.stringify([job.owner, job.key]);
  const ownerOf = (qkey: string): string => (JSON.parse(qkey) as [string, string])[0];
  // Per (owner, key): evaluations that cost a sandbox process (a timeout, a memory overrun,
  // a crash) in a row. A failing key gets one process at a time (see admit); after
  // `breakerFailures` in a row it is refused until the cool-down ends, then one is tried again.
  const breaker = createKeyedBreaker({ failureThreshold: options.breakerFailures ?? 3, cooldownMs: options.breakerCooldownMs ?? 30_000, now });
  const pausedWhy = (key: string): string | null => {
    const r = breaker.blocked(key);
    return r ? pauseMessage(r, now()) : null;
  };
  const running = new Map<string, number>();
  const stats: ProcessPoolStats = { starts: 0, startMs: [] };
  let nextId = 1;
  let closed = false;
  options.log?.info({ network: networkIsolation().kind }, `${options.name}: processes start ${networkIsolation().kind === 'none' ? 'without a network namespace (the language-level refusal only)' : `in a network namespace of their own (${networkIsolation().kind})`}`);

  const remove = (w: Worker): void => {
    const i = workers.indexOf(w);
    if (i >= 0) workers.splice(i, 1);
  };

  const settle = (w: Worker, outcome: PoolOutcome): void => {
    const job = w.job;
    if (!job) return;
    clearTimeout(job.timer);
    w.job = null;
    w.lastUsed = now();
    const qkey = queueKey(job);
    const n = (running.get(qkey) ?? 1) - 1;
    if (n > 0) running.set(qkey, n);
    else running.delete(qkey);
    if (outcome.kind === 'reply') breaker.success(qkey);
    else if (outcome.kind === 'timeout') breaker.failure(qkey, `timed out after ${job.timeoutMs} ms`);
    else if (outcome.kind === 'exit') breaker.failure(qkey, `the process ended (${outcome.signal ?? `code ${String(outcome.code)}`})`);
    job.resolve(outcome);
  };

  const kill = (w: Worker): void => {
    remove(w);
    if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
  };

  const start = (owner: string): Worker => {
    const proc = spawnLimited(options.args, options.limits);
    let onClosed!: () => void;
    const w: Worker = { owner, lastUsed: now(), proc, ready: false, job: null, stderr: '', closed: new Promise((resolve) => (onClosed = resolve)) };
    stats.starts++;
    const startTimer = setTimeout(() => {
      if (!w.ready) kill(w);
    }, options.startTimeoutMs);
    proc.stderr.on('data', (d: Buffer) => {
      w.stderr = (w.stderr + d.toString()).slice(-4000);
    });
    createInterface({ input: proc.stdout }).on('line', (line) => {
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (msg.ready === true && !w.ready) {
        clearTimeout(startTimer);
        w.ready = true;
        w.lastUsed = now();
        stats.startMs.push(typeof msg.startMs === 'number' ? msg.startMs : 0);
        options.log?.debug({ pid: proc.pid, startMs: msg.startMs }, `${options.name} process ready`);
        pump();
        return;
      }
      if (!w.job || msg.id !== w.job.id) return;
      const { id: _id, exiting, ...message } = msg;
      // A process that is about to exit takes no further job.
      if (exiting === true) kill(w);
      settle(w, { kind: 'reply', message });
      pump();
    });
    let hasEnded = false;
    const ended = (code: number | null, signal: string | null): void => {
      if (hasEnded) return;
      hasEnded = true;
      clearTimeout(startTimer);
      remove(w);
      onClosed();
      if (w.job) {
        settle(w, { kind: 'exit', code, signal, stderr: w.stderr });
      } else if (!w.ready && !closed && proc.signalCode !== 'SIGKILL') {
        // Start-up failed on its own: refuse what waits rather than restarting forever.
        const why = w.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${signal ?? String(code)}`;
        for (const job of queue.drain()) job.resolve({ kind: 'refused', error: `the ${options.name} did not start: ${why}` });
      } else if (!w.ready && !closed) {
        for (const job of queue.drain()) job.resolve({ kind: 'refused', error: `the ${options.name} did not start within ${options.startTimeoutMs} ms` });
      }
      pump();
    };
    // 'close' comes after stdout is drained, so a reply written just before exiting is read first.
    proc.on('close', ended);
    proc.on('error', (err) => {
      w.stderr += `\n${err.message}`;
      // A process that never started emits no 'close'.
      if (proc.pid === undefined) ended(null, null);
    });
    proc.stdin.on('error', () => undefined);
    workers.push(w);
    return w;
  };

  const admit = (qkey: string): boolean => {
    const refusal = pausedWhy(qkey);
    if (refusal) {
      // Refused now rather than when a process frees up: a paused check waits for nothing.
      for (const job of queue.drainKey(qkey)) job.resolve({ kind: 'refused', error: refusal });
      return false;
    }
    // One of its owner's processes always stays free for the owner's other keys; a suspect key gets one at a time.
    const cap = breaker.failing(qkey) ? 1 : Math.max(1, perOwner - 1);
    return (running.get(qkey) ?? 0) < cap;
  };
  const idleOf = (owner: string): Worker | undefined => workers.find((w) => w.owner === owner && w.ready && !w.job);

  // Starts a process for the first owner in rotation that waits with none of its own idle (with
  // `starved`: only an owner with no process at all): in a free slot, else in place of an idle
  // process of another owner — one with nothing waiting first, then one with processes to spare, the
  // least recently used first. False when no owner can get one now.
  const startForWaiting = (starved: boolean): boolean => {
    const waitingOwners = new Set(queue.keys().map(ownerOf));
    for (const qkey of queue.keys()) {
      const owner = ownerOf(qkey);
      const own = workers.filter((w) => w.owner === owner);
      if ((starved && own.length > 0) || idleOf(owner) || !admit(qkey)) continue;
      const queued = queue.keys().filter((k) => ownerOf(k) === owner).reduce((n, k) => n + queue.count(k), 0);
      if (own.length >= perOwner || own.filter((w) => !w.ready).length >= queued) continue;
      if (workers.length >= size) {
        const idle = workers.filter((w) => w.ready && !w.job && w.owner !== owner);
        if (idle.length === 0) return false;
        const count = (o: string): number => workers.filter((w) => w.owner === o).length;
        const rank = (w: Worker): number => (waitingOwners.has(w.owner) ? 1 : 0) + (count(w.owner) > 1 ? 0 : 2);
        const victim = idle.sort((a, b) => rank(a) - rank(b) || a.lastUsed - b.lastUsed)[0];
        options.log?.debug({ pid: victim.proc.pid, owner: victim.owner, for: owner }, `${options.name}: idle process ended for another project`);
        kill(victim);
      }
      start(owner);
      return true;
    }
    return false;
  };

  function pump(): void {
    if (closed) return;
    for (;;) {
      if (queue.size() === 0) return;
      // A project with work and no process at all goes before the busy ones' next jobs: a project
      // with a constant backlog cannot keep the pool to itself.
      if (startForWaiting(true)) continue;
      const next = queue.take((qkey) => idleOf(ownerOf(qkey)) !== undefined && admit(qkey));
      if (!next) {
        if (startForWaiting(false)) continue;
        return;
      }
      const job = next.job;
      const idle = idleOf(job.owner)!;
      const id = nextId++;
      running.set(next.key, (running.get(next.key) ?? 0) + 1);
      idle.job = {
        ...job,
        id,
        timer: setTimeout(() => {
          kill(idle);
          settle(idle, { kind: 'timeout' });
          pump();
        }, job.timeoutMs),
      };
      idle.proc.stdin.write(`${JSON.stringify({ id, request: job.request })}\n`);
    }
  }

  return {
    run(job) {
      if (closed) return Promise.resolve({ kind: 'refused', error: `the ${options.name} is closed` });
      const refusal = pausedWhy(queueKey(job));
      if (refusal) return Promise.resolve({ kind: 'refused', error: refusal });
      return new Promise((resolve) => {
        queue.push(queueKey(job), { ...job, resolve });
        pump();
      });
    },
    stats: () => ({ starts: stats.starts, startMs: [...stats.startMs] }),
    pids: () => workers.flatMap((w) => (w.proc.pid === undefined ? [] : [w.proc.pid])),
    processes: () => workers.flatMap((w) => (w.proc.pid === undefined ? [] : [{ pid: w.proc.pid, owner: w.owner }])),
    async close() {
      closed = true;
      for (const job of queue.drain()) job.resolve({ kind: 'refused', error: `the ${options.name} is closed` });
      const all = workers.splice(0);
      for (const w of all) {
        settle(w, { kind: 'refused', error: `the ${options.name} is closed` });
        if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
      }
      await Promise.all(all.map((w) => w.closed));
    },
  };
}
