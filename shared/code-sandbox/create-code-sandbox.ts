import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import type { CodeRunner, CodeRunRequest, CodeRunResult } from '../checks/index.ts';
import type { PythonSandbox, PythonSandboxOptions } from '../python-sandbox/index.ts';
import { createPythonSandbox } from '../python-sandbox/index.ts';
import { transpileCheck } from './transpile.ts';
import { WORKER_SOURCE } from './worker-source.ts';

export interface CodeSandboxOptions {
  /** Per evaluation, unless the check sets its own (default 2,000 ms). */
  timeoutMs?: number;
  /** V8 old-space limit of the sandbox process (default 64 MB). */
  memoryMb?: number;
  log?: Logger;
  /** Options of the Python interpreters, started on the first Python call. */
  python?: PythonSandboxOptions;
}

export interface CodeSandbox extends CodeRunner {
  /** The Python pool behind `language: 'python'` (started on first use), for snippets too. */
  python(): PythonSandbox;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  proc: ChildProcessWithoutNullStreams;
  resolve: (result: CodeRunResult) => void;
  timer: NodeJS.Timeout;
}

/**
 * Runs user code checks in one long-lived child process (reused across evaluations; every
 * evaluation gets a fresh VM context, so no state is shared between checks or between calls).
 *
 * Guarantees, by layer:
 * - Node permission model (`--experimental-permission`, no allow flags): no file-system read or
 *   write at all (the program comes in through `-e`, the user module through stdin), no child
 *   processes, no worker threads, no native addons.
 * - Network: Node 20's permission model does not cover it. User code runs in a `node:vm` context
 *   holding only the JavaScript builtins (no `require`, `process`, `fetch`, `WebSocket`, timers);
 *   arguments enter as JSON text and results leave as primitives, so no host object is reachable;
 *   code generation from strings is disabled in the context and process-wide
 *   (`--disallow-code-generation-from-strings`), closing the `constructor.constructor` route.
 * - Time: a synchronous overrun is stopped by the VM timeout; anything else by SIGKILL of the
 *   process when the deadline passes (it is restarted for the next evaluation).
 * - Memory: `--max-old-space-size`; an out-of-memory crash becomes an error result.
 * The `node:vm` module is not a security boundary against V8 bugs; the process boundary and the
 * permission model are what hold if it breaks.
 */
export function createCodeSandbox(options: CodeSandboxOptions = {}): CodeSandbox {
  const defaultTimeoutMs = options.timeoutMs ?? 2_000;
  const memoryMb = options.memoryMb ?? 64;
  let child: ChildProcessWithoutNullStreams | null = null;
  let stderr = '';
  let nextId = 1;
  let current: Pending | null = null;
  const queue: { req: CodeRunRequest; code: string; resolve: (r: CodeRunResult) => void }[] = [];
  let closed = false;
  let python: PythonSandbox | null = null;
  const pythonSandbox = (): PythonSandbox => (python ??= createPythonSandbox({ ...(options.log ? { log: options.log } : {}), ...options.python }));

  const finish = (result: CodeRunResult): void => {
    const p = current;
    if (!p) return;
    clearTimeout(p.timer);
    current = null;
    p.resolve(result);
    pump();
  };

  const start = (): ChildProcessWithoutNullStreams => {
    const proc = spawn(
      process.execPath,
      ['--experimental-permission', '--disallow-code-generation-from-strings', `--max-old-space-size=${memoryMb}`, '--no-warnings', '-e', WORKER_SOURCE],
      { stdio: ['pipe', 'pipe', 'pipe'], env: {} },
    );
    stderr = '';
    proc.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    createInterface({ input: proc.stdout }).on('line', (line) => {
      let msg: { id: number | null; ok: boolean; value?: unknown; error?: string };
      try {
        msg = JSON.parse(line) as typeof msg;
      } catch {
        return;
      }
      if (current && current.proc === proc && msg.id === current.id) finish(msg.ok ? { ok: true, value: msg.value } : { ok: false, error: msg.error ?? 'failed' });
    });
    proc.on('exit', (code, signal) => {
      if (child === proc) child = null;
      if (current && current.proc === proc) {
        const oom = /heap out of memory|Allocation failed/i.test(stderr);
        finish({ ok: false, error: oom ? `ran out of memory (limit ${memoryMb} MB)` : `the sandbox process exited (${signal ?? `code ${String(code)}`})` });
      }
    });
    proc.stdin.on('error', () => undefined);
    options.log?.debug({ pid: proc.pid }, 'code sandbox started');
    return proc;
  };

  function pump(): void {
    if (current || closed) return;
    const next = queue.shift();
    if (!next) return;
    const timeoutMs = next.req.timeoutMs ?? defaultTimeoutMs;
    child ??= start();
    const proc = child;
    const id = nextId++;
    current = {
      id,
      proc,
      resolve: next.resolve,
      // The VM timeout stops synchronous loops; this deadline (with slack for start-up) stops the rest.
      timer: setTimeout(() => {
        if (child === proc) child = null;
        proc.kill('SIGKILL');
        finish({ ok: false, error: `timed out after ${timeoutMs} ms` });
      }, timeoutMs + 1_000),
    };
    let args: string;
    try {
      args = JSON.stringify(next.req.args);
    } catch (err) {
      finish({ ok: false, error: `arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    proc.stdin.write(`${JSON.stringify({ id, code: next.code, args, timeoutMs })}\n`);
  }

  return {
    evaluate(req: CodeRunRequest): Promise<CodeRunResult> {
      if (closed) return Promise.resolve({ ok: false, error: 'the code sandbox is closed' });
      if (req.language === 'python') return pythonSandbox().evaluate(req);
      const compiled = transpileCheck(req.source, req.language);
      if (!compiled.ok) return Promise.resolve({ ok: false, error: compiled.error });
      return new Promise((resolve) => {
        queue.push({ req, code: compiled.code, resolve });
        pump();
      });
    },
    python: pythonSandbox,
    async close(): Promise<void> {
      closed = true;
      await python?.close();
      for (const q of queue.splice(0)) q.resolve({ ok: false, error: 'the code sandbox is closed' });
      finish({ ok: false, error: 'the code sandbox is closed' });
      const proc = child;
      child = null;
      if (!proc || proc.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.stdin.end();
        setTimeout(() => proc.kill('SIGKILL'), 1_000).unref();
      });
    },
  };
}
