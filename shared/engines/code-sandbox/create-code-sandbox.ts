import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../checks/index.ts';
import { MAX_CODE_CHECK_TIMEOUT_MS } from '../checks/index.ts';
import type { PythonSandbox, PythonSandboxOptions } from './python-sandbox/index.ts';
import { createPythonSandbox } from './python-sandbox/index.ts';
import type { PoolOutcome, ProcessPool } from './sandbox-pool/index.ts';
import { createProcessPool } from './sandbox-pool/index.ts';
import type { SyntaxChecker } from './create-syntax-checker.ts';
import { createSyntaxChecker } from './create-syntax-checker.ts';
import { WORKER_SOURCE } from './worker-source.ts';

export interface CodeSandboxOptions {
  /** Per evaluation, unless the check sets its own (default 2,000 ms). */
  timeoutMs?: number;
  /**
   * OS data limit (RLIMIT_DATA) of each sandbox process, default 256 MB: V8's heap, typed arrays,
   * Buffers and WebAssembly memories together. The V8 heap alone gets half of it.
   */
  memoryMb?: number;
  /** Sandbox processes per project, each running one evaluation at a time (default 2); also the Python pool's unless `python` sets it. */
  processes?: number;
  /** Sandbox processes over all projects, per language (default `max(processes, 4)`); also the Python pool's unless `python` sets it. */
  totalProcesses?: number;
  log?: Logger;
  /** Options of the Python interpreters, started on the first Python call. */
  python?: PythonSandboxOptions;
}

export interface CodeSandbox extends Required<CodeRunner> {
  /** The Python pool behind `language: 'python'` (started on first use), for snippets too. */
  python(): PythonSandbox;
  /** Process ids of the live JavaScript sandbox processes. */
  pids(): number[];
  /** The live JavaScript sandbox processes and the project each serves. */
  processes(): { pid: number; owner: string }[];
  close(): Promise<void>;
}

/** Markers of a process that died of memory (V8's heap limit, or malloc refused by the OS limit). */
const OOM_STDERR = /heap out of memory|Allocation failed|out of memory|bad_alloc/i;

/**
 * Runs user code checks in a pool of child processes (reused across evaluations; every evaluation
 * gets a fresh VM context, so no state is shared between checks or between calls).
 *
 * Guarantees, by layer:
 * - OS limits set before node starts (sandbox-pool/): RLIMIT_DATA caps everything the process
 *   allocates (heap, ArrayBuffers, Buffers, WebAssembly memory), RLIMIT_CPU backs up the deadline,
 *   no core files.
 * - Node permission model (`--experimental-permission`, no allow flags): no file-system read or
 *   write at all (the program comes in through `-e`, the user module through stdin), no child
 *   processes, no worker threads, no native addons.
 * - Network: Node 20's permission model does not cover it. User code runs in a `node:vm` context
 *   holding only the JavaScript builtins (no `require`, `process`, `fetch`, `WebSocket`, timers);
 *   arguments enter as JSON text and results leave as primitives, so no host object is reachable;
 *   code generation from strings is disabled in the context and process-wide
 *   (`--disallow-code-generation-from-strings`), closing the `constructor.constructor` route.
 * - Time: SIGKILL of the process when the deadline passes (a new one starts for what waits); the
 *   VM timeout stops a synchronous loop at the same deadline when the process is orphaned.
 * - Fairness: the pool serves checks round-robin; a check that cost a process runs in one at a
 *   time, and after three in a row it is paused (its evaluations are error scores saying so).
 * The `node:vm` module is not a security boundary against V8 bugs; the process boundary, the OS
 * limits and the permission model are what hold if it breaks.
 */
export function createCodeSandbox(options: CodeSandboxOptions = {}): CodeSandbox {
  const defaultTimeoutMs = options.timeoutMs ?? 2_000;
  const memoryMb = options.memoryMb ?? 256;
  const heapMb = Math.max(16, Math.floor(memoryMb / 2));
  let python: PythonSandbox | null = null;
  let parser: SyntaxChecker | null = null;
  let closed = false;
  const pythonSandbox = (): PythonSandbox =>
    (python ??= createPythonSandbox({ ...(options.processes ? { poolSize: options.processes } : {}), ...(options.totalProcesses ? { totalPoolSize: options.totalProcesses } : {}), ...(options.log ? { log: options.log } : {}), ...options.python }));
  const syntaxChecker = (): SyntaxChecker => (parser ??= createSyntaxChecker({ processes: options.processes ?? 2, ...(options.log ? { log: options.log } : {}) }));
  const pool: ProcessPool = createProcessPool({
    name: 'code sandbox',
    args: ['--experimental-permission', '--disallow-code-generation-from-strings', `--max-old-space-size=${heapMb}`, '--no-warnings', '-e', WORKER_SOURCE],
    limits: { memoryMb, cpuSeconds: 300 },
    size: options.totalProcesses ?? Math.max(options.processes ?? 2, 4),
    perOwner: options.processes ?? 2,
    startTimeoutMs: 30_000,
    ...(options.log ? { log: options.log } : {}),
  });

  const outOfMemory = `ran out of memory (limit ${memoryMb} MB)`;
  const toResult = (outcome: PoolOutcome, timeoutMs: number): CodeRunResult => {
    switch (outcome.kind) {
      case 'reply': {
        const m = outcome.message as { ok?: boolean; value?: unknown; error?: string; memory?: boolean };
        if (m.ok === true) return { ok: true, value: m.value };
        return { ok: false, error: m.memory ? outOfMemory : (m.error ?? 'failed') };
      }
      case 'timeout':
        return { ok: false, error: `timed out after ${timeoutMs} ms` };
      case 'exit':
        if (OOM_STDERR.test(outcome.stderr)) return { ok: false, error: outOfMemory };
        return { ok: false, error: `the sandbox process exited (${outcome.signal ?? `code ${String(outcome.code)}`})` };
      case 'refused':
        return { ok: false, error: outcome.error };
    }
  };

  return {
    async evaluate(req: CodeRunRequest): Promise<CodeRunResult> {
      if (closed) return { ok: false, error: 'the code sandbox is closed' };
      if (req.language === 'python') return pythonSandbox().evaluate(req);
      // Check sources are hostile too: the TypeScript parser never runs in this thread (a source can overflow its stack and break its module state for every other check).
      const compiled = await syntaxChecker().transpile(req.source, req.language);
      if (!compiled.ok) return { ok: false, error: compiled.error };
      let args: string;
      try {
        args = JSON.stringify(req.args);
      } catch (err) {
        return { ok: false, error: `arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` };
      }
      // Definitions are validated to this bound; a caller past it is held to it all the same.
      const timeoutMs = Math.min(req.timeoutMs ?? defaultTimeoutMs, MAX_CODE_CHECK_TIMEOUT_MS);
      const key = createHash('sha256').update(compiled.code).digest('hex');
      const outcome = await pool.run({ owner: req.project ?? 'default', key, request: JSON.stringify({ code: compiled.code, args, timeoutMs }), timeoutMs });
      return toResult(outcome, timeoutMs);
    },
    syntaxErrors(req) {
      if (closed) return Promise.resolve({ ok: false, error: 'the code sandbox is closed' });
      return syntaxChecker().syntaxErrors(req);
    },
    python: pythonSandbox,
    pids: () => pool.pids(),
    processes: () => pool.processes(),
    async close(): Promise<void> {
      closed = true;
      await Promise.all([pool.close(), python?.close(), parser?.close()]);
    },
  };
}
