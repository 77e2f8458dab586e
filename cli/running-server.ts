import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Config } from '../shared/runtime/config/index.ts';
import { PermanentError } from '../shared/runtime/errors/index.ts';

// Talking to a running `tracecheck up`: it holds the embedded DuckDB file, so a command that reads
// or writes the store goes through that server's API instead. `up` states where its API listens in
// a small file beside the DuckDB file; a command finds it there.

const SERVER_FILE = 'server.json';
const ServerFileSchema = z.object({ pid: z.number().int().positive(), api_url: z.string().url() });

export interface RunningServer {
  pid: number;
  apiUrl: string;
}

const serverFile = (dataDir: string): string => join(dataDir, SERVER_FILE);

/** Written by `up` once its API listens (embedded mode only: ClickHouse is shared by design). */
export function writeServerFile(dataDir: string, server: RunningServer): void {
  writeFileSync(serverFile(dataDir), `${JSON.stringify({ pid: server.pid, api_url: server.apiUrl })}\n`, { mode: 0o600 });
}

export function removeServerFile(dataDir: string): void {
  rmSync(serverFile(dataDir), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The `tracecheck up` holding this configuration's DuckDB file, if one runs; null with ClickHouse. */
export function findRunningServer(config: Pick<Config, 'clickhouse' | 'dataDir'>): RunningServer | null {
  if (config.clickhouse) return null;
  let text: string;
  try {
    text = readFileSync(serverFile(config.dataDir), 'utf8');
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = ServerFileSchema.safeParse(json);
  // A file left by a process that died without removing it names no server.
  if (!parsed.success || !alive(parsed.data.pid)) return null;
  return { pid: parsed.data.pid, apiUrl: parsed.data.api_url };
}

/** A refusal or failure of the running server, said so that the user knows what to do. */
export class ServerApiError extends PermanentError {
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export interface ServerApi {
  readonly url: string;
  /** JSON in, JSON out; a non-2xx answer throws a ServerApiError naming the fix. */
  call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

/**
 * A client of the running server's API. `key` comes from `--key` or TRACECHECK_API_KEY; the
 * answer's project (the key's) must be `project` when the command names one.
 */
export function serverApi(server: RunningServer, key: string | undefined, project: string | undefined): ServerApi {
  const url = server.apiUrl;
  return {
    url,
    async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${url}${path}`, {
          method,
          headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (err) {
        throw new ServerApiError(`tracecheck up (pid ${server.pid}) holds the store but its API at ${url} does not answer: ${err instanceof Error ? err.message : String(err)}`);
      }
      const text = await res.text();
      const answer = (text ? (JSON.parse(text) as unknown) : null) as { error?: string } | null;
      if (res.status === 401) {
        throw new ServerApiError(
          key
            ? `the running tracecheck up (${url}) refuses this key: give an admin key of the project (--key KEY or TRACECHECK_API_KEY)`
            : `tracecheck up runs (${url}) and its API has keys: give an admin key of the project with --key KEY or TRACECHECK_API_KEY`,
          401,
        );
      }
      if (res.status >= 400) throw new ServerApiError(`${answer?.error ?? `HTTP ${res.status}`} (through the running tracecheck up at ${url})`, res.status);
      const keyProject = res.headers.get('x-tracecheck-project');
      if (project !== undefined && keyProject !== null && keyProject !== project) {
        throw new ServerApiError(
          key
            ? `the key is of project "${keyProject}", not "${project}": give a key of "${project}" (--key KEY or TRACECHECK_API_KEY)`
            : `the running tracecheck up has no API key yet and is open as project "${keyProject}"; create a key of "${project}" first (tracecheck keys create --project ${project} --role admin)`,
        );
      }
      return answer as T;
    },
  };
}
