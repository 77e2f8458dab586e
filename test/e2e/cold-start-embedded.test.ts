import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedPorts, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { report } from '../helpers/score-counts.ts';
import { freePort } from '../helpers/private-servers.ts';

// Issue 22, "starts that cannot collide", on a DuckDB file: `tracecheck up` (the README's embedded
// command) started on a new data dir, each round, serving with one schema and no error logged; and
// the one way several processes can meet on one file — separate services without
// TRACECHECK_CLICKHOUSE_URL — ends in a one-line error that says what to do, not a stack trace.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = 20;
const SCHEMA = ['docs', 'score_revisions', 'scores', 'unit_revisions', 'units'];

async function tablesOf(file: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name");
    return reader.getRowObjects().map((r) => String(r.table_name));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function errorLines(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('{') && Number((JSON.parse(l) as { level?: unknown }).level) >= 50);
}

describe('cold starts on a DuckDB file', () => {
  const dirs: string[] = [];
  const running: EmbeddedUp[] = [];
  afterEach(async () => {
    for (const up of running.splice(0)) await up.kill();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it(`starts \`tracecheck up\` on a new data dir ${ROUNDS} times: serving, one schema, no error logged`, { timeout: 600_000 }, async () => {
    const startMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const dir = await mkdtemp(join(tmpdir(), 'tracecheck-coldstart-'));
      dirs.push(dir);
      const t0 = Date.now();
      const up = await startEmbeddedUp(dir, await embeddedPorts(), {});
      running.push(up);
      startMs.push(Date.now() - t0);
      expect((await fetch(`${up.apiUrl}/healthz`, { signal: AbortSignal.timeout(5_000) })).status, `round ${round}`).toBe(200);
      expect((await fetch(`${up.collectorUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' })).status, `round ${round}`).toBe(200);
      await up.stop();
      running.splice(running.indexOf(up), 1);
      expect(errorLines(up.output()).join('\n'), `round ${round}`).toBe('');
      expect(await tablesOf(join(dir, 'tracecheck.duckdb')), `round ${round}`).toEqual(SCHEMA);
    }
    report('embedded cold starts', { rounds: ROUNDS, secondsUntilUp: startMs.map((ms) => Math.round(ms / 100) / 10) });
  });

  it('refuses a second process on the same DuckDB file with one line naming the holder and what to do', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tracecheck-coldstart-'));
    dirs.push(dir);
    const up = await startEmbeddedUp(dir, await embeddedPorts(), {});
    running.push(up);
    const second = spawn(process.execPath, [join(ROOT, 'bin', 'tracecheck.mjs'), 'api'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TRACECHECK_DATA_DIR: dir, TRACECHECK_API_PORT: String(await freePort()), TRACECHECK_LOG_LEVEL: 'fatal' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    second.stdout.on('data', (d: Buffer) => (output += d.toString()));
    second.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((done) => second.once('exit', (c) => done(c)));
    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^tracecheck api: could not start: duckdb migrate failed: the DuckDB file is in use by another process \\(PID ${up.pid()}\\): one process owns an embedded store, so run the services together \\(\`tracecheck up\`\\), or give separate services a ClickHouse store \\(TRACECHECK_CLICKHOUSE_URL\\)\\. DuckDB said: `),
    );
  });
});
