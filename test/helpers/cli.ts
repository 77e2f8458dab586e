import { PassThrough } from 'node:stream';
import type { CliIo } from '../../cli/command.ts';
import { spawn } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end with a bounded wait (killed and rejected past `timeoutMs`), with only
 * PATH and HOME from our environment plus `env`.
 */
export function runCommand(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs: number }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not exit within ${options.timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `up --demo` in embedded mode on free ports (0), with a short grace period and its own data dir. */
export function demoEnv(dataDir: string): Record<string, string> {
  return {
    TRACECHECK_DATA_DIR: dataDir,
    TRACECHECK_OTLP_HTTP_PORT: '0',
    TRACECHECK_OTLP_GRPC_PORT: '0',
    TRACECHECK_API_PORT: '0',
    TRACECHECK_TRACE_GRACE_MS: '500',
  };
}

/** The demo's score table as [conversation, check, result, value] rows. */
export function demoScoreRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => /^(healthy|toolFails|loops)\s/.test(l))
    .map((l) => {
      const [scenario, , check, result, value] = l.split(/\s{2,}/);
      return [scenario, check, result, value];
    });
}

/** What `up --demo` prints with the default checks (function_result_present, task_completed). */
export const DEFAULT_DEMO_ROWS = [
  ['healthy', 'function_result_present', 'PASS', '1'],
  ['healthy', 'task_completed', 'PASS', '1'],
  ['toolFails', 'function_result_present', 'FAIL', '0'],
  ['toolFails', 'task_completed', 'FAIL', '0'],
  ['loops', 'function_result_present', 'PASS', '1'],
  ['loops', 'task_completed', 'FAIL', '0'],
];

/** In-memory streams for running a command in this process; `out()` and `err()` read what it wrote. */
export function captureIo(env: Record<string, string | undefined>): CliIo & { out(): string; err(): string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { stdin: new PassThrough(), stdout, stderr, env, out: () => out, err: () => err };
}
