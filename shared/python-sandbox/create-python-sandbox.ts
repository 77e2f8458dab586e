import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../checks/index.ts';
import { RUNNER_SOURCE } from './runner-source.ts';
import { PYTHON_WORKER_SOURCE } from './worker-source.ts';

export interface PythonSandboxOptions {
  /** Per call, unless the request sets its own (default 2,000 ms). */
  timeoutMs?: number;
  /** Cap on the interpreter's WebAssembly memory (default 256 MB; Pyodide itself takes about 30). */
  memoryMb?: number;
  /** V8 heap cap of each sandbox process (default 128 MB). */
  heapMb?: number;
  /** Interpreters kept running (default 1); each serves one call at a time. */
  poolSize?: number;
  /** Bound on an interpreter's start-up (default 60,000 ms; about 2 s on an idle core). */
  startTimeoutMs?: number;
  log?: Logger;
}

/** Python run as a snippet: `vars` become globals, `outputs` are read back after it ran. */
export interface PythonSnippetRequest {
  source: string;
  vars: Record<string, unknown>;
  outputs: readonly string[];
  timeoutMs?: number;
}

export type PythonSnippetResult = { ok: true; values: Record<string, unknown> } | { ok: false; error: string };

export interface PythonSandboxStats {
  /** Interpreters started so far (a timeout or a memory overrun replaces one). */
  starts: number;
  /** Start-up of each interpreter as the process measured it: loading Pyodide and the runner. */
  startMs: number[];
}

export interface PythonSandbox extends CodeRunner {
  runSnippet(request: PythonSnippetRequest): Promise<PythonSnippetResult>;
  stats(): PythonSandboxStats;
  close(): Promise<void>;
}

type Reply = { ok: true; value?: unknown; values?: Record<string, unknown> } | { ok: false; error: string; memory?: boolean };

interface Job {
  request: string;
  timeoutMs: number;
  resolve: (reply: Reply) => void;
}

interface Interpreter {
  proc: ChildProcessWithoutNullStreams;
  ready: boolean;
  job: (Job & { id: number; timer: NodeJS.Timeout }) | null;
  stderr: string;
}

/** The installed `pyodide` package folder: resolved from node_modules, so a built dist finds it too. */
export function pyodideDir(): string {
  return dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
}

/**
 * Python check files and snippets run in Pyodide (CPython compiled to WebAssembly) inside a pool of
 * child processes, each held by the Node permission model (worker-source.ts lists the layers).
 * Interpreters start on first use and are reused; each call gets fresh globals and builtins, and
 * modules it imported are dropped afterwards. A call past its deadline kills its process (a
 * synchronous `while True` cannot be interrupted otherwise); the pool starts another.
 */
export function createPythonSandbox(options: PythonSandboxOptions = {}): PythonSandbox {
  const defaultTimeoutMs = options.timeoutMs ?? 2_000;
  const memoryMb = options.memoryMb ?? 256;
  const heapMb = options.heapMb ?? 128;
  const poolSize = Math.max(1, options.poolSize ?? 1);
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const dir = pyodideDir();
  const pool: Interpreter[] = [];
  const queue: Job[] = [];
  const stats: PythonSandboxStats = { starts: 0, startMs: [] };
  let nextId = 1;
  let closed = false;

  const remove = (it: Interpreter): void => {
    const i = pool.indexOf(it);
    if (i >= 0) pool.splice(i, 1);
  };

  const settle = (it: Interpreter, reply: Reply): void => {
    const job = it.job;
    if (!job) return;
    clearTimeout(job.timer);
    it.job = null;
    job.resolve(reply);
  };

  const start = (): Interpreter => {
    const proc = spawn(
      process.execPath,
      [
        '--experimental-permission',
        `--allow-fs-read=${dir}`,
        '--disallow-code-generation-from-strings',
        `--max-old-space-size=${heapMb}`,
        '--no-warnings',
        '--input-type=module',
        '-e',
        PYTHON_WORKER_SOURCE,
        dir,
        String(memoryMb),
        RUNNER_SOURCE,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'], env: {} },
    );
    const it: Interpreter = { proc, ready: false, job: null, stderr: '' };
    stats.starts++;
    const startTimer = setTimeout(() => {
      if (!it.ready) proc.kill('SIGKILL');
    }, startTimeoutMs);
    proc.stderr.on('data', (d: Buffer) => {
      it.stderr = (it.stderr + d.toString()).slice(-4000);
    });
    createInterface({ input: proc.stdout }).on('line', (line) => {
      let msg: { ready?: boolean; startMs?: number; id?: number; reply?: string; exiting?: boolean };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        return;
      }
      if (msg.ready) {
        clearTimeout(startTimer);
        it.ready = true;
        stats.startMs.push(msg.startMs ?? 0);
        options.log?.debug({ pid: proc.pid, startMs: msg.startMs }, 'python sandbox ready');
        pump();
        return;
      }
      if (!it.job || msg.id !== it.job.id || typeof msg.reply !== 'string') return;
      let reply: Reply;
      try {
        reply = JSON.parse(msg.reply) as Reply;
      } catch {
        reply = { ok: false, error: 'the interpreter sent an unreadable reply' };
      }
      if (!reply.ok && reply.memory) reply = { ok: false, error: `ran out of memory (limit ${memoryMb} MB)` };
      // An interpreter that is about to exit takes no further call.
      if (msg.exiting) remove(it);
      settle(it, reply);
      pump();
    });
    // 'close' comes after stdout is drained, so a reply written just before exiting is read first.
    proc.on('close', (code, signal) => {
      clearTimeout(startTimer);
      remove(it);
      if (it.job) {
        const oom = /heap out of memory|Allocation failed/i.test(it.stderr);
        settle(it, { ok: false, error: oom ? `ran out of memory (limit ${heapMb} MB of JavaScript heap)` : `the Python sandbox process exited (${signal ?? `code ${String(code)}`})` });
      } else if (!it.ready && !closed) {
        // Start-up failed: fail the waiting calls rather than restarting forever.
        const why = it.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${signal ?? String(code)}`;
        for (const job of queue.splice(0)) job.resolve({ ok: false, error: `the Python sandbox did not start: ${why}` });
      }
      pump();
    });
    proc.stdin.on('error', () => undefined);
    pool.push(it);
    return it;
  };

  function pump(): void {
    if (closed) return;
    while (queue.length > 0) {
      const idle = pool.find((it) => it.ready && !it.job);
      if (!idle) {
        const starting = pool.filter((it) => !it.ready).length;
        if (pool.length < poolSize && starting < queue.length) start();
        return;
      }
      const job = queue.shift()!;
      const id = nextId++;
      const proc = idle.proc;
      idle.job = {
        ...job,
        id,
        timer: setTimeout(() => {
          remove(idle);
          proc.kill('SIGKILL');
          settle(idle, { ok: false, error: `timed out after ${job.timeoutMs} ms` });
          pump();
        }, job.timeoutMs),
      };
      proc.stdin.write(`${JSON.stringify({ id, request: job.request })}\n`);
    }
  }

  const submit = (payload: Record<string, unknown>, timeoutMs: number | undefined): Promise<Reply> => {
    if (closed) return Promise.resolve({ ok: false, error: 'the Python sandbox is closed' });
    let request: string;
    try {
      request = JSON.stringify(payload);
    } catch (err) {
      return Promise.resolve({ ok: false, error: `arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` });
    }
    return new Promise((resolve) => {
      queue.push({ request, timeoutMs: timeoutMs ?? defaultTimeoutMs, resolve });
      pump();
    });
  };

  return {
    async evaluate(req: CodeRunRequest): Promise<CodeRunResult> {
      if (req.language !== 'python') return { ok: false, error: `the Python sandbox runs Python, not ${req.language}` };
      const reply = await submit({ kind: 'check', source: req.source, args: req.args }, req.timeoutMs);
      return reply.ok ? { ok: true, value: reply.value ?? null } : { ok: false, error: reply.error };
    },
    async runSnippet(req: PythonSnippetRequest): Promise<PythonSnippetResult> {
      const reply = await submit({ kind: 'snippet', source: req.source, vars: req.vars, outputs: req.outputs }, req.timeoutMs);
      return reply.ok ? { ok: true, values: reply.values ?? {} } : { ok: false, error: reply.error };
    },
    stats: () => ({ starts: stats.starts, startMs: [...stats.startMs] }),
    async close(): Promise<void> {
      closed = true;
      for (const job of queue.splice(0)) job.resolve({ ok: false, error: 'the Python sandbox is closed' });
      await Promise.all(
        pool.splice(0).map(
          (it) =>
            new Promise<void>((resolve) => {
              settle(it, { ok: false, error: 'the Python sandbox is closed' });
              if (it.proc.exitCode !== null || it.proc.signalCode !== null) return resolve();
              it.proc.once('exit', () => resolve());
              it.proc.stdin.end();
              setTimeout(() => it.proc.kill('SIGKILL'), 1_000).unref();
            }),
        ),
      );
    },
  };
}
