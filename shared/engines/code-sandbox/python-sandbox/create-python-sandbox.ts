import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../../checks/index.ts';
import { MAX_CODE_CHECK_TIMEOUT_MS } from '../../checks/index.ts';
import type { ProcessPoolStats } from '../sandbox-pool/index.ts';
import { createProcessPool } from '../sandbox-pool/index.ts';
import { RUNNER_SOURCE } from './runner-source.ts';
import { PYTHON_WORKER_SOURCE } from './worker-source.ts';

export interface PythonSandboxOptions {
  /** Per call, unless the request sets its own (default 2,000 ms). */
  timeoutMs?: number;
  /** Cap on the interpreter's WebAssembly memory (default 256 MB; Pyodide itself takes about 30). */
  memoryMb?: number;
  /** V8 heap cap of each sandbox process (default 128 MB). */
  heapMb?: number;
  /**
   * OS data limit (RLIMIT_DATA) of each interpreter process: WebAssembly memory, V8 heap and
   * Pyodide's own (default memoryMb + heapMb + 256).
   */
  processMemoryMb?: number;
  /** Interpreters at most per project (default 2); each serves one call at a time, of one project only. */
  poolSize?: number;
  /** Interpreters at most over all projects (default `max(poolSize, 4)`): past it, a project's idle ones are ended, least recently used first. */
  totalPoolSize?: number;
  /** Bound on an interpreter's start-up (default 60,000 ms; about 2 s on an idle core). */
  startTimeoutMs?: number;
  log?: Logger;
}

/** Python run as a snippet: `vars` become globals, `outputs` are read back after it ran. */
interface PythonSnippetRequest {
  source: string;
  vars: Record<string, unknown>;
  outputs: readonly string[];
  timeoutMs?: number;
  /** Whose code this is (default `default`): interpreters are never shared between projects. */
  project?: string;
}

type PythonSnippetResult = { ok: true; values: Record<string, unknown> } | { ok: false; error: string };

/** `starts`: interpreters started so far (a timeout or a memory overrun replaces one); `startMs`: loading Pyodide and the runner, as each measured it. */
type PythonSandboxStats = ProcessPoolStats;

/** Error text kept of a failed call, as the JavaScript sandbox cuts its errors: a check cannot make the store hold megabytes per score. */
const MAX_ERROR_CHARS = 2_000;

/** Interpreters over all projects when not configured (each holds about 175 MB resident). */
const DEFAULT_TOTAL_PROCESSES = 4;

/** Room beyond the WebAssembly cap and V8 heap: an idle interpreter process maps about 240 MB of data (measured), part of it its first WebAssembly memory. */
const PYODIDE_OVERHEAD_MB = 256;

export interface PythonSandbox extends CodeRunner {
  runSnippet(request: PythonSnippetRequest): Promise<PythonSnippetResult>;
  stats(): PythonSandboxStats;
  /** Process ids of the live interpreters. */
  pids(): number[];
  /** The live interpreters and the project each serves. */
  processes(): { pid: number; owner: string }[];
  close(): Promise<void>;
}

type Reply = { ok: true; value?: unknown; values?: Record<string, unknown> } | { ok: false; error: string; memory?: 'cap' | 'os' };

/** The installed `pyodide` package folder: resolved from node_modules, so a built dist finds it too. */
export function pyodideDir(): string {
  return dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
}

/**
 * Python check files and snippets run in Pyodide (CPython compiled to WebAssembly) inside a pool of
 * child processes, each held by the Node permission model (worker-source.ts lists the layers).
 * Interpreters start on first use and are reused; after each call the interpreter's whole memory is
 * put back as it was before the first, so no call sees what an earlier one did (a call that changed
 * anything outside that memory ends its process instead). A call past its deadline kills its process (a
 * synchronous `while True` cannot be interrupted otherwise); the pool starts another.
 */
export function createPythonSandbox(options: PythonSandboxOptions = {}): PythonSandbox {
  const defaultTimeoutMs = options.timeoutMs ?? 2_000;
  const memoryMb = options.memoryMb ?? 256;
  const heapMb = options.heapMb ?? 128;
  const processMemoryMb = options.processMemoryMb ?? memoryMb + heapMb + PYODIDE_OVERHEAD_MB;
  const dir = pyodideDir();
  let closed = false;
  const pool = createProcessPool({
    name: 'Python sandbox',
    args: [
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
    limits: { memoryMb: processMemoryMb, cpuSeconds: 600 },
    size: options.totalPoolSize ?? Math.max(options.poolSize ?? 2, DEFAULT_TOTAL_PROCESSES),
    perOwner: options.poolSize ?? 2,
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    ...(options.log ? { log: options.log } : {}),
  });

  const submit = async (payload: Record<string, unknown>, requestedTimeoutMs: number | undefined, project: string | undefined): Promise<Reply> => {
    const reply = await submitUncut(payload, requestedTimeoutMs, project ?? 'default');
    return reply.ok ? reply : { ...reply, error: reply.error.slice(0, MAX_ERROR_CHARS) };
  };
  const submitUncut = async (payload: Record<string, unknown>, requestedTimeoutMs: number | undefined, owner: string): Promise<Reply> => {
    if (closed) return { ok: false, error: 'the Python sandbox is closed' };
    let request: string;
    try {
      request = JSON.stringify(payload);
    } catch (err) {
      return { ok: false, error: `arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` };
    }
    const timeoutMs = Math.min(requestedTimeoutMs ?? defaultTimeoutMs, MAX_CODE_CHECK_TIMEOUT_MS);
    const key = createHash('sha256').update(String(payload.source)).digest('hex');
    const outcome = await pool.run({ owner, key, request, timeoutMs });
    switch (outcome.kind) {
      case 'reply': {
        let reply: Reply;
        try {
          reply = JSON.parse(String(outcome.message.reply)) as Reply;
        } catch {
          return { ok: false, error: 'the interpreter sent an unreadable reply' };
        }
        if (!reply.ok && reply.memory === 'cap') return { ok: false, error: `ran out of memory (limit ${memoryMb} MB)` };
        if (!reply.ok && reply.memory === 'os') return { ok: false, error: `ran out of memory (limit ${processMemoryMb} MB for the process)` };
        return reply;
      }
      case 'timeout':
        return { ok: false, error: `timed out after ${timeoutMs} ms` };
      case 'exit': {
        const oom = /heap out of memory|Allocation failed|out of memory|bad_alloc/i.test(outcome.stderr);
        return { ok: false, error: oom ? `ran out of memory (limit ${processMemoryMb} MB for the process)` : `the Python sandbox process exited (${outcome.signal ?? `code ${String(outcome.code)}`})` };
      }
      case 'refused':
        return { ok: false, error: outcome.error };
    }
  };

  return {
    async evaluate(req: CodeRunRequest): Promise<CodeRunResult> {
      if (req.language !== 'python') return { ok: false, error: `the Python sandbox runs Python, not ${req.language}` };
      const reply = await submit({ kind: 'check', source: req.source, args: req.args }, req.timeoutMs, req.project);
      return reply.ok ? { ok: true, value: reply.value ?? null } : { ok: false, error: reply.error };
    },
    async runSnippet(req: PythonSnippetRequest): Promise<PythonSnippetResult> {
      const reply = await submit({ kind: 'snippet', source: req.source, vars: req.vars, outputs: req.outputs }, req.timeoutMs, req.project);
      return reply.ok ? { ok: true, values: reply.values ?? {} } : { ok: false, error: reply.error };
    },
    stats: () => pool.stats(),
    pids: () => pool.pids(),
    processes: () => pool.processes(),
    async close(): Promise<void> {
      closed = true;
      await pool.close();
    },
  };
}
