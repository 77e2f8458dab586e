// Metric queries over 1,000,000 units: GET /api/v1/metrics/series (p95 duration per
// hour over a week; p95 per 5 minutes of one agent over a day), /api/v1/metrics/summary per agent
// version, and compare's latency/cost section, through the real API app, on DuckDB (a file) and
// ClickHouse (TRACECHECK_TEST_CLICKHOUSE_URL, default http://127.0.0.1:18123; skipped when
// unreachable). The units are generated in the store by one INSERT … SELECT (the figures are what
// is measured, not the writer). Median of QUERIES runs after one warm-up.
// `npm run bench:metrics [-- UNITS]`. Results are appended to bench/results/metrics.md.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../shared/adapters/store/index.ts';
import { createApp } from '../services/api/src/index.ts';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const WEEK = 7 * 86_400_000;
const DAY = 86_400_000;
const QUERIES = 7;
const log = createSilentLogger();

const COLUMNS = 'unit_id, kind, agent_name, agent_version, environment, service, conversation_id, model, start_time_ms, end_time_ms, span_count, truncated, assembled_at_ms, unit_json, project, duration_ms, cost_usd, llm_calls, tool_calls, tool_errors, input_tokens, output_tokens, errored';

/**
 * The SELECT list of unit i (`i` is the row number: DuckDB's range, ClickHouse's numbers): 3 agents,
 * 4 versions, 2 models, end times spread evenly over the last week, durations 200 ms – 10.2 s.
 */
function selectList(i: string, mod: (a: string, b: number) => string, str: (x: string) => string, flag: (cond: string) => string): string {
  const end = `(${NOW - WEEK} + ${i} * ${Math.floor(WEEK / TOTAL)})`;
  const duration = `(200 + ${mod(`${i} * 7919`, 10007)})`;
  const pick = (xs: string[]): string => `[${xs.map((x) => `'${x}'`).join(', ')}][${mod(i, xs.length)} + 1]`;
  return [
    `concat('bench-', ${str(i)})`,
    `'trace'`,
    pick(['booking-agent', 'support-agent', 'search-agent']),
    pick(['v1', 'v2', 'v3', 'v4']),
    `'prod'`,
    `'bench'`,
    'NULL',
    pick(['gpt-4o', 'claude-sonnet-4']),
    `${end} - ${duration}`,
    end,
    '3',
    flag('1 = 0'),
    end,
    `'{}'`,
    `'default'`,
    duration,
    `${mod(`${i} * 104729`, 9973)} / 1000000.0`,
    `1 + ${mod(i, 5)}`,
    mod(i, 4),
    flag(`${mod(i, 53)} = 0`),
    `100 + ${mod(i, 900)}`,
    `10 + ${mod(i, 97)}`,
    flag(`${mod(i, 41)} = 0`),
  ].join(', ');
}

async function fillDuckDb(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  const list = selectList('i', (a, b) => `((${a}) % ${b})`, (x) => `CAST(${x} AS VARCHAR)`, (cond) => `CAST((${cond}) AS INTEGER)`);
  await c.run(`INSERT INTO units (${COLUMNS}) SELECT ${list} FROM range(${TOTAL}) t(i)`);
  c.closeSync();
  instance.closeSync();
}

async function fillClickHouse(url: string, database: string): Promise<void> {
  const c = createClient({ url, request_timeout: 600_000 });
  const list = selectList('number', (a, b) => `modulo(${a}, ${b})`, (x) => `toString(${x})`, (cond) => `toUInt8(${cond})`);
  try {
    await c.command({ query: `INSERT INTO ${database}.units (${COLUMNS}, write_seq) SELECT ${list}, number FROM system.numbers LIMIT ${TOTAL}` });
    await c.command({ query: `OPTIMIZE TABLE ${database}.units FINAL` });
  } finally {
    await c.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeQuery(store: Store, path: string): Promise<number> {
  const app = createApp({ store, log, now: () => NOW });
  const times: number[] = [];
  for (let i = 0; i <= QUERIES; i++) {
    const t0 = performance.now();
    const res = await app.request(path);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body}`);
    if (i > 0) times.push(performance.now() - t0);
  }
  return median(times);
}

const QUERIES_TIMED = {
  'series p95 duration, 1h buckets, 7 d': `/api/v1/metrics/series?metric=duration_ms&stat=p95&bucket=1h&from=${NOW - WEEK}&to=${NOW}`,
  'series p95 duration, 5m buckets, 24 h, one agent': `/api/v1/metrics/series?metric=duration_ms&stat=p95&bucket=5m&agent=booking-agent&from=${NOW - DAY}&to=${NOW}`,
  'series sum cost, 1d buckets, 7 d': `/api/v1/metrics/series?metric=cost_usd&stat=sum&bucket=1d&from=${NOW - WEEK}&to=${NOW}`,
  'summary per agent_version, 7 d': `/api/v1/metrics/summary?group_by=agent_version&from=${NOW - WEEK}&to=${NOW}`,
  'compare v1 vs v2 on duration, cost, tokens, 7 d': `/api/v1/compare?a.agent_version=v1&b.agent_version=v2&from=${NOW - WEEK}&to=${NOW}`,
} as const;

type Row = { backend: string; fill_s: number } & Record<keyof typeof QUERIES_TIMED, number>;

async function measure(backend: string, store: Store, fill: () => Promise<void>): Promise<Row> {
  const t0 = performance.now();
  await fill();
  const row = { backend, fill_s: (performance.now() - t0) / 1000 } as Row;
  await store.start();
  for (const [name, path] of Object.entries(QUERIES_TIMED) as Array<[keyof typeof QUERIES_TIMED, string]>) row[name] = await timeQuery(store, path);
  console.log(JSON.stringify(row));
  return row;
}

async function clickHouseUp(url: string): Promise<boolean> {
  const c = createClient({ url, request_timeout: 2_000 });
  try {
    return (await c.ping()).success;
  } finally {
    await c.close();
  }
}

const load = loadavg().map((x) => x.toFixed(2)).join(' ');
const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bench-metrics-'));
const path = join(dir, 'bench.duckdb');
const duck = createDuckDbStore({ path, log });
try {
  // The store creates and migrates the file; the rows go in while no store holds it.
  await duck.start();
  await duck.shutdown();
  const reopened = createDuckDbStore({ path, log });
  try {
    rows.push(await measure('DuckDB (file)', reopened, () => fillDuckDb(path)));
  } finally {
    await reopened.shutdown();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const chUrl = process.env.TRACECHECK_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
if (await clickHouseUp(chUrl)) {
  const database = `tc_bench_metrics_${process.pid}`;
  const ch = createClickHouseStore({ url: chUrl, database, log, requestTimeoutMs: 120_000 });
  try {
    await ch.start();
    rows.push(await measure(`ClickHouse (${chUrl})`, ch, () => fillClickHouse(chUrl, database)));
  } finally {
    await ch.shutdown();
    const admin = createClient({ url: chUrl });
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
  }
} else {
  console.log(`ClickHouse at ${chUrl} not reachable: skipped`);
}

const resultsDir = join(import.meta.dirname, 'results');
if (!existsSync(resultsDir)) mkdirSync(resultsDir);
const file = join(resultsDir, 'metrics.md');
if (!existsSync(file)) {
  appendFileSync(file, `# bench:metrics\n\nMetric queries through the API app, median of ${QUERIES} after a warm-up, ms. Targets: p95 series < 200 ms on DuckDB, < 500 ms on ClickHouse.\n`);
}
const names = Object.keys(QUERIES_TIMED) as Array<keyof typeof QUERIES_TIMED>;
appendFileSync(
  file,
  `\n## ${new Date().toISOString()} — ${TOTAL.toLocaleString('en-US')} units, ${hostname()}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load ${load} at start\n\n| backend | fill s | ${names.join(' | ')} |\n| --- | --- | ${names.map(() => '---').join(' | ')} |\n${rows
    .map((r) => `| ${r.backend} | ${r.fill_s.toFixed(1)} | ${names.map((n) => r[n].toFixed(0)).join(' | ')} |`)
    .join('\n')}\n`,
);
console.log(`appended to ${file}`);
