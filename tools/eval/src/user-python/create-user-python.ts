import { spawn } from 'node:child_process';
import type { SnippetRequest, SnippetResult, SnippetRunner } from '../run-metrics.ts';
import { RUNNER_SOURCE } from './runner-source.ts';

export interface UserPythonOptions {
  /** The interpreter: `--python`, else LLMEVAL_PYTHON, else `python3` on PATH. */
  python: string;
  /** A snippet still running after this long is killed and fails. */
  timeoutMs: number;
}

/** How a template renders a value: text as is, numbers and booleans as written, the rest as JSON. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return JSON.stringify(v) ?? '';
}

/**
 * llmeval's suite code (prompt `code:`, metric `code:`, `metrics_rollup` code) in the user's own
 * Python, one process per snippet, so the user's installed packages import as in their CI. The
 * code is the user's own suite, trusted like a test file; values from references and model
 * answers reach it only as data (JSON on stdin).
 */
export function createUserPython(options: UserPythonOptions): SnippetRunner {
  return {
    runSnippet: (req: SnippetRequest): Promise<SnippetResult> =>
      new Promise((resolve) => {
        const substitute = req.substitute ? { values: req.substitute, texts: Object.fromEntries(Object.entries(req.substitute).map(([k, v]) => [k, asText(v)])) } : null;
        const child = spawn(options.python, ['-c', RUNNER_SOURCE], { stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
        let answer = '';
        let stderr = '';
        let settled = false;
        const done = (r: SnippetResult): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(r);
        };
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          done({ ok: false, error: `Python code ran longer than ${options.timeoutMs} ms` });
        }, options.timeoutMs);
        child.on('error', (err: NodeJS.ErrnoException) => {
          done({ ok: false, error: err.code === 'ENOENT' ? `Python interpreter "${options.python}" not found (set --python PATH or LLMEVAL_PYTHON)` : `cannot start ${options.python}: ${err.message}` });
        });
        child.stdio[3]!.on('data', (c: Buffer) => (answer += c.toString()));
        child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
        child.on('close', (code) => {
          try {
            const parsed = JSON.parse(answer) as { ok: boolean; values?: Record<string, unknown>; error?: string };
            done(parsed.ok ? { ok: true, values: parsed.values ?? {} } : { ok: false, error: parsed.error ?? 'failed' });
          } catch {
            done({ ok: false, error: `${options.python} exited ${code} without an answer${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}` });
          }
        });
        child.stdin!.on('error', () => undefined);
        child.stdin!.end(JSON.stringify({ source: req.source, vars: req.vars, outputs: req.outputs, substitute }));
      }),
  };
}
