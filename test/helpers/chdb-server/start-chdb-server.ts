import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

export interface ChdbServer {
  /** http://127.0.0.1:<port>, for `@clickhouse/client` and the store. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The current ClickHouse engine (npm `chdb`) behind a ClickHouse-compatible HTTP front, in a child
 * process with its own session directory (tables persist across queries; removed at stop). The
 * child's stdin is a pipe: it ends when this process dies, and the child leaves with it. `profile`:
 * settings the server applies to every query unless the query sets them (a server's default profile).
 */
export async function startChdbServer(options: { startTimeoutMs?: number; profile?: Record<string, string | number> } = {}): Promise<ChdbServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-chdb-'));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'run-ts.mjs'), join(ROOT, 'test', 'helpers', 'chdb-server', 'main.ts'), dir, ...Object.entries(options.profile ?? {}).map(([k, v]) => `${k}=${v}`)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`chdb server did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^listening (\d+)$/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolvePort(Number(m[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`chdb server exited with ${String(code)}: ${stderr}`));
      });
    });
    return {
      url: `http://127.0.0.1:${port}`,
      async stop() {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
