import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { waitFor } from './infra.ts';
import { freePort } from './private-servers.ts';

// `tracecheck up` (embedded: in-process bus with its log on disk + DuckDB) as a process of its own
// (dist/: `npm run build` first), for the burst and backlog tests: its RSS, its bus's unread
// records, and exact counts of what it stored and scored, read through its API.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface EmbeddedPorts {
  http: number;
  grpc: number;
  api: number;
}

export interface EmbeddedUp {
  readonly collectorUrl: string;
  readonly apiUrl: string;
  pid(): number | undefined;
  rssMb(): number;
  /** Records of `topic` some group has not read yet (the bus's own gauge). */
  unread(topic: string): Promise<number>;
  kill(): Promise<void>;
  stop(timeoutMs?: number): Promise<void>;
  output(): string;
}

export async function embeddedPorts(): Promise<EmbeddedPorts> {
  return { http: await freePort(), grpc: await freePort(), api: await freePort() };
}

/** Starts `tracecheck up` on `dataDir` and waits until it says it is up. */
export async function startEmbeddedUp(dataDir: string, ports: EmbeddedPorts, env: Record<string, string>): Promise<EmbeddedUp> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'tracecheck.mjs'), 'up'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TRACECHECK_DATA_DIR: dataDir,
      TRACECHECK_HOST: '127.0.0.1',
      TRACECHECK_OTLP_HTTP_PORT: String(ports.http),
      TRACECHECK_OTLP_GRPC_PORT: String(ports.grpc),
      TRACECHECK_API_PORT: String(ports.api),
      TRACECHECK_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer) => {
    output += d.toString();
    // Bounded: a burst logs a warning per refused export.
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  const up: EmbeddedUp = {
    collectorUrl: `http://127.0.0.1:${ports.http}`,
    apiUrl,
    pid: () => child.pid,
    rssMb: () => {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) / 1024 : 0;
      } catch {
        return 0;
      }
    },
    unread: async (topic) => {
      const text = await (await fetch(`${apiUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      const m = new RegExp(`^tracecheck_bus_records_unread\\{[^}]*topic="${topic.replace(/\./g, '\\.')}"[^}]*\\} (\\S+)$`, 'm').exec(text);
      if (!m) throw new Error(`no tracecheck_bus_records_unread for ${topic}`);
      return Number(m[1]);
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      process.off('exit', onExit);
    },
    stop: async (timeoutMs = 30_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
      process.off('exit', onExit);
    },
    output: () => output,
  };
  try {
    await waitFor(() => output.includes('tracecheck is up') || child.exitCode !== null || undefined, { timeoutMs: 120_000, description: 'tracecheck up' });
    if (!output.includes('tracecheck is up')) throw new Error(`tracecheck up did not start:\n${output.slice(-3_000)}`);
  } catch (err) {
    await up.kill();
    throw err;
  }
  return up;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every row of a listing, followed page by page to the end. */
async function all<T>(apiUrl: string, path: string, field: 'units' | 'scores', limit: number): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { next_cursor: string | null } & Record<string, unknown> = await getJson(`${apiUrl}${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...(page[field] as T[]));
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

export interface EmbeddedCounts {
  /** Score rows, each unit's count of them, and the span count of each stored unit. */
  scoreRows: number;
  scoresPerUnit: Map<string, number>;
  spansPerUnit: Map<string, number>;
}

export async function embeddedCounts(apiUrl: string): Promise<EmbeddedCounts> {
  const scores = await all<{ unit_id: string }>(apiUrl, '/api/v1/scores', 'scores', 1_000);
  const units = await all<{ unit_id: string; span_count: number }>(apiUrl, '/api/v1/units', 'units', 1_000);
  const scoresPerUnit = new Map<string, number>();
  for (const s of scores) scoresPerUnit.set(s.unit_id, (scoresPerUnit.get(s.unit_id) ?? 0) + 1);
  return { scoreRows: scores.length, scoresPerUnit, spansPerUnit: new Map(units.map((u) => [u.unit_id, u.span_count])) };
}

/** Score rows over every check (the checks summary's totals): cheap enough to poll during a drain. */
export async function scoredTotal(apiUrl: string): Promise<number> {
  const body = await getJson<{ checks: Array<{ total: number }> }>(`${apiUrl}/api/v1/checks/summary?from=0`);
  return body.checks.reduce((n, c) => n + c.total, 0);
}

/** Scores of one unit (a probe's). */
async function scoresOf(apiUrl: string, unitId: string): Promise<number> {
  return (await getJson<{ count: number }>(`${apiUrl}/api/v1/scores?unit_id=${unitId}`)).count;
}

/**
 * Sends one-run probes, one after another, each waited for until scored: the time from `since`
 * until one was scored within a second, and each probe's send-to-scored time. Every probe must be
 * taken (200) within `takeTimeoutMs` (the collector may still answer 429 just after a burst).
 */
export async function probeUntilSubSecond(up: EmbeddedUp, since: number, timeoutMs: number, makeProbe: () => { ids: string[]; body: string }): Promise<{ subSecondAfterMs: number; probeMs: number[]; probeIds: string[] }> {
  const probeMs: number[] = [];
  const probeIds: string[] = [];
  for (;;) {
    if (Date.now() - since > timeoutMs) throw new Error(`no probe scored within a second in ${timeoutMs} ms: ${JSON.stringify(probeMs)}`);
    const probe = makeProbe();
    let sentAt = 0;
    await waitFor(
      async () => {
        sentAt = Date.now();
        const res = await fetch(`${up.collectorUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: probe.body });
        await res.arrayBuffer();
        return res.status === 200 || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'the collector takes a probe' },
    );
    probeIds.push(probe.ids[0]);
    await waitFor(async () => (await scoresOf(up.apiUrl, probe.ids[0])) === 1 || undefined, { timeoutMs, intervalMs: 50, description: 'a probe scored' });
    const ms = Date.now() - sentAt;
    probeMs.push(ms);
    if (ms < 1_000) return { subSecondAfterMs: Date.now() - since, probeMs, probeIds };
    await sleep(250);
  }
}
