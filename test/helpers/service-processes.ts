import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './infra.ts';
import { freePort } from './private-servers.ts';

// Pipeline services as separate processes, as users run them on Kafka + ClickHouse
// (`tracecheck collector`, `tracecheck assembler`, `tracecheck scorer`, `tracecheck api`), through bin/tracecheck.mjs,
// i.e. dist/ (`npm run build` first). Fault tests kill them with SIGKILL and start them again.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface ServiceProcess {
  readonly name: 'collector' | 'assembler' | 'scorer' | 'api';
  /** http://host:port of its OTLP/HTTP receiver (collector), its API (api) or metrics server (assembler, scorer). */
  readonly url: string;
  pid(): number | undefined;
  /** kill -9, and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown), and wait for the exit; SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
  /** The last lines it wrote to stderr (its JSON log), for failure messages. */
  logTail(lines?: number): string;
  /** Its log lines (parsed JSON) so far. */
  logRecords(): Array<Record<string, unknown>>;
}

/**
 * Starts `tracecheck <name>` with `env` (on top of PATH and HOME only) on free ports and waits until
 * it answers on /healthz: the collector once it listens, an assembler or scorer once its consumers
 * joined their groups (its metrics server starts last). `root`: another checkout's bin/ and dist/ (a bench's before/after pair);
 * `stdoutFile`: where its stdout goes (appended), else nowhere; `nodeArgs`: flags for node (V8's --trace-gc is refused in NODE_OPTIONS).
 */
export async function startService(name: ServiceProcess['name'], env: Record<string, string>, options: { readyTimeoutMs?: number; root?: string; stdoutFile?: string; nodeArgs?: readonly string[] } = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const ports =
    name === 'collector'
      ? { TRACECHECK_OTLP_HTTP_PORT: String(port), TRACECHECK_OTLP_GRPC_PORT: String(await freePort()) }
      : name === 'api'
        ? { TRACECHECK_API_PORT: String(port) }
        : { TRACECHECK_METRICS_PORT: String(port) };
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(root, 'bin', 'tracecheck.mjs'), name], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TRACECHECK_LOG_LEVEL: 'info', ...env, ...ports },
    // stdout (V8's --trace-gc lines, for a bench) to a file when asked; the JSON log is stderr.
    stdio: ['ignore', options.stdoutFile ? openSync(options.stdoutFile, 'a') : 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    // Bounded: a long run logs a lot.
    if (stderr.length > 4_000_000) stderr = stderr.slice(-2_000_000);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => (children.delete(child), done())));
  const url = `http://127.0.0.1:${port}`;
  const logTail = (lines = 20): string => stderr.split('\n').slice(-lines - 1).join('\n');
  const service: ServiceProcess = {
    name,
    url,
    pid: () => child.pid,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async (timeoutMs = 30_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
    logTail,
    logRecords: () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`tracecheck ${name} exited with ${child.exitCode}:\n${logTail()}`);
        return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) })).ok;
      },
      { timeoutMs: options.readyTimeoutMs ?? 90_000, intervalMs: 200, description: `tracecheck ${name} answering on ${url}/healthz` },
    );
  } catch (err) {
    await service.kill();
    throw err;
  }
  return service;
}
