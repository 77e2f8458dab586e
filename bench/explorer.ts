// The explorer at scale: `--units` synthetic units (default 1,000,000; 3 scores each)
// loaded by bulk INSERT … SELECT into DuckDB (a file) and into ClickHouse 18.16 (a database of
// its own, dropped after), then p50/p95 of list and free-text search queries through the store's
// exploreUnits, and a few through the HTTP API; then the same on the current engine (chdb 26.7
// behind its HTTP front, test/helpers/chdb-server) unless `--no-chdb`.
// `npm run bench:explorer [-- --units 50000 --rounds 20 --no-chdb]`.
// Results are appended to bench/results/explorer.md. Targets: list p95 < 200 ms (ClickHouse) and
// < 500 ms (DuckDB); search p95 < 1 s and < 2 s.
import { appendFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { createClickHouseStore, createDuckDbStore, type ExploreQuery, type Store } from '../shared/adapters/store/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createApiServer } from '../services/api/src/index.ts';
import { scoresInsertSql, unitsInsertSql } from './explorer-data.ts';
import { unitTimesFillSql } from '../shared/adapters/store/clickhouse-unit-times.ts';
import { startChdbServer } from '../test/helpers/chdb-server/start-chdb-server.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const UNITS = arg('units', 1_000_000);
const ROUNDS = arg('rounds', 20);
const CHUNK = 100_000;
// The project an API without keys serves, so the HTTP cases see the same units.
const PROJECT = 'default';
const NOW = Date.now();
const CH_URL = process.env.TRACECHECK_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
const log = createSilentLogger();

type Case = { name: string; kind: 'list' | 'search'; query: Omit<ExploreQuery, 'project'> };
const CASES: Case[] = [
  { name: 'newest first', kind: 'list', query: { limit: 50 } },
  { name: 'agent + version', kind: 'list', query: { agent: 'billing-agent', agentVersion: 'v2', limit: 50 } },
  { name: 'last 24 h, sessions', kind: 'list', query: { fromMs: NOW - 86_400_000, kind: 'session', limit: 50 } },
  { name: 'tool + status error', kind: 'list', query: { tool: 'issue_refund', status: 'error', limit: 50 } },
  { name: 'check grounded = fail', kind: 'list', query: { check: 'grounded', verdict: 'fail', limit: 50 } },
  { name: 'sort by cost', kind: 'list', query: { sort: 'cost', limit: 50 } },
  { name: 'cost + duration range, by tokens', kind: 'list', query: { costMin: 0.01, costMax: 0.02, durationMinMs: 5_000, durationMaxMs: 8_000, sort: 'tokens', limit: 50 } },
  { name: 'common word ("refund")', kind: 'search', query: { text: 'refund', limit: 50 } },
  { name: 'rare: one order ("order 777777")', kind: 'search', query: { text: `order ${Math.floor(UNITS * 0.777)}`, limit: 50 } },
  { name: 'no match ("zanzibar")', kind: 'search', query: { text: 'zanzibar', limit: 50 } },
  { name: 'two words + environment ("refund delivered")', kind: 'search', query: { text: 'refund delivered', environment: 'prod', limit: 50 } },
];
const HTTP_CASES = ['/api/v1/units?limit=50', '/api/v1/units?q=refund&limit=50', '/api/v1/sessions?agent=billing-agent&limit=50'];

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];
const ms = (x: number): string => `${x.toFixed(x < 10 ? 1 : 0)} ms`;

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
}

interface Row {
  backend: string;
  load_s: number;
  results: Array<{ name: string; kind: string; rows: number; p50: number; p95: number }>;
}

async function measure(backend: string, store: Store, loadS: number): Promise<Row> {
  const results: Row['results'] = [];
  for (const c of CASES) {
    const times: number[] = [];
    let rows = 0;
    await store.exploreUnits({ project: PROJECT, ...c.query }); // warm
    for (let r = 0; r < ROUNDS; r++) {
      const [t, page] = await time(() => store.exploreUnits({ project: PROJECT, ...c.query }));
      times.push(t);
      rows = page.length;
    }
    results.push({ name: c.name, kind: c.kind, rows, p50: pct(times, 0.5), p95: pct(times, 0.95) });
    console.log(`${backend} ${c.kind} ${c.name}: ${rows} rows, p50 ${ms(pct(times, 0.5))}, p95 ${ms(pct(times, 0.95))}`);
  }
  // The second page of the plain list, through its cursor.
  const first = await store.exploreUnits({ project: PROJECT, limit: 50 });
  const last = first.at(-1);
  if (last) {
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) times.push((await time(() => store.exploreUnits({ project: PROJECT, limit: 50, after: { key: last.sort_key, unit_id: last.unit_id } })))[0]);
    results.push({ name: 'newest first, page 2 (cursor)', kind: 'list', rows: 50, p50: pct(times, 0.5), p95: pct(times, 0.95) });
  }
  const api = createApiServer({ host: '127.0.0.1', port: 0, store, log });
  await api.start();
  try {
    for (const path of HTTP_CASES) {
      const times: number[] = [];
      let rows = 0;
      for (let r = 0; r < Math.min(ROUNDS, 10); r++) {
        const [t, body] = await time(async () => (await fetch(`${api.url()}${path}`)).json() as Promise<{ count: number }>);
        times.push(t);
        rows = body.count;
      }
      results.push({ name: `HTTP GET ${path}`, kind: path.includes('q=') ? 'search' : 'list', rows, p50: pct(times, 0.5), p95: pct(times, 0.95) });
    }
  } finally {
    await api.shutdown();
  }
  return { backend, load_s: loadS, results };
}

async function loadDuckDb(path: string): Promise<number> {
  // The store makes the tables; the bulk load then runs on its own connection to the file.
  const schema = createDuckDbStore({ path, log });
  await schema.start();
  await schema.shutdown();
  const t = performance.now();
  const instance = await DuckDBInstance.create(path, { memory_limit: '2GB' });
  const c = await instance.connect();
  for (let from = 0; from < UNITS; from += CHUNK) {
    const n = Math.min(CHUNK, UNITS - from);
    await c.run(unitsInsertSql('duckdb', 'units', from, n, NOW, PROJECT));
    await c.run(scoresInsertSql('duckdb', 'scores', from * 3, n * 3, NOW, PROJECT));
  }
  await c.run('CHECKPOINT');
  c.closeSync();
  instance.closeSync();
  return (performance.now() - t) / 1000;
}

async function loadClickHouse(url: string, database: string, store: Store): Promise<number> {
  await store.start();
  const admin = createClient({ url, request_timeout: 600_000 });
  const t = performance.now();
  try {
    for (let from = 0; from < UNITS; from += CHUNK) {
      const n = Math.min(CHUNK, UNITS - from);
      await admin.command({ query: unitsInsertSql('clickhouse', `${database}.units`, from, n, NOW, PROJECT) });
      await admin.command({ query: scoresInsertSql('clickhouse', `${database}.scores`, from * 3, n * 3, NOW, PROJECT) });
    }
    // The explorer's time table, as a database from before it gets it at its migration.
    await admin.command({ query: unitTimesFillSql(database) });
  } finally {
    await admin.close();
  }
  return (performance.now() - t) / 1000;
}

const out: Row[] = [];
const loads: number[] = [loadavg()[0]];
const dir = join(import.meta.dirname, '..', '.cache', `explorer-bench-${process.pid}`);
mkdirSync(dir, { recursive: true });
try {
  const path = join(dir, 'store.duckdb');
  const loadS = await loadDuckDb(path);
  console.log(`duckdb: ${UNITS} units loaded in ${loadS.toFixed(1)} s`);
  const store = createDuckDbStore({ path, log, memoryLimit: '2GB' });
  // Its start fills the units' score badges from the scores loaded behind its back (as for a file from before them).
  const started = performance.now();
  await store.start();
  console.log(`duckdb: store started (badges filled) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  out.push(await measure('DuckDB (file)', store, loadS));
  await store.shutdown();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
loads.push(loadavg()[0]);

/** Loads and measures one ClickHouse server (18.16, or chdb's front), in a database of its own dropped after. */
async function benchClickHouse(url: string): Promise<void> {
  const database = `bench_explorer_${process.pid}`;
  const admin = createClient({ url });
  try {
    const store = createClickHouseStore({ url, database, log, requestTimeoutMs: 120_000 });
    const loadS = await loadClickHouse(url, database, store);
    console.log(`clickhouse ${url}: ${UNITS} units loaded in ${loadS.toFixed(1)} s`);
    const version = (await (await admin.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>())[0]?.v ?? '?';
    const parts = (await (await admin.query({ query: `SELECT count() AS n FROM system.parts WHERE database = '${database}' AND table = 'units' AND active`, format: 'JSONEachRow' })).json<{ n: string }>())[0]?.n ?? '?';
    out.push(await measure(`ClickHouse ${version} (${parts} parts)`, store, loadS));
    await store.shutdown();
  } finally {
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
  }
  loads.push(loadavg()[0]);
}

await benchClickHouse(CH_URL);
if (!process.argv.includes('--no-chdb')) {
  const chdb = await startChdbServer();
  try {
    await benchClickHouse(chdb.url);
  } finally {
    await chdb.stop();
  }
}

const file = join(import.meta.dirname, 'results', 'explorer.md');
if (!existsSync(file)) appendFileSync(file, '# Explorer benchmark\n\nList and free-text search over synthetic units: `npm run bench:explorer`.\n');
const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
const lines = [
  '',
  `## ${new Date().toISOString()} – ${hostname()}, ${cpu} (${cpus().length} cores), Node ${process.version}`,
  '',
  `${UNITS.toLocaleString('en-US')} units (3 scores each, ~700 characters of dialog, 4 agents, 4 models, 5 tools), one project; pages of 50; ${ROUNDS} runs of each query, one at a time, after one warm-up. Load average ${loads.map((l) => l.toFixed(1)).join(' → ')} (the machine is shared with other agents' work).`,
  '',
  '| backend | load | query | kind | rows | p50 | p95 |',
  '|---|---:|---|---|---:|---:|---:|',
  ...out.flatMap((r) => r.results.map((x) => `| ${r.backend} | ${r.load_s.toFixed(0)} s | ${x.name} | ${x.kind} | ${x.rows} | ${ms(x.p50)} | ${ms(x.p95)} |`)),
];
appendFileSync(file, `${lines.join('\n')}\n`);
console.log(lines.join('\n'));
