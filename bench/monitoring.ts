// Monitoring queries over 1,000,000 scores: GET /api/v1/series and /api/v1/compare through the
// real API app (zod parsing, SQL aggregation in the store, statistics), p50/p95 of 50 queries each,
// on DuckDB (a file) and on ClickHouse (TRACECHECK_TEST_CLICKHOUSE_URL, default
// http://127.0.0.1:18123; skipped when unreachable), plus one alerter pass over 100 rules, and the
// dashboard's overview, check and compare pages over a week (server-rendered, same app).
// `npm run bench:monitoring [-- SCORES]`. Results are appended to bench/results/monitoring.md.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import type { Score } from '../shared/contracts/schemas/index.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../shared/adapters/store/index.ts';
import { createApp } from '../services/api/src/index.ts';
import { benchAlerter } from './monitoring-alerter.ts';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const CHECKS = ['loop_guard', 'task_completed', 'function_result_present', 'response_loop', 'model_refusal', 'automated_resolution', 'behavior_adherence', 'faithfulness', 'toxicity', 'coherence'];
const VERSIONS = ['v1', 'v2', 'v3', 'v4'];
const AGENTS = ['booking-agent', 'support-agent', 'search-agent'];
const NOW = Date.now();
const WEEK = 7 * 86_400_000;
const QUERIES = 50;
const BATCH = 50_000;
const log = createSilentLogger();

/** Deterministic scores: unit i gets one score per check; v2 fails loop_guard more often. */
function* scores(): Generator<Score[]> {
  let batch: Score[] = [];
  const units = Math.ceil(TOTAL / CHECKS.length);
  for (let u = 0; u < units; u++) {
    const version = VERSIONS[u % VERSIONS.length];
    const end = NOW - WEEK + Math.floor((u / units) * WEEK);
    for (let k = 0; k < CHECKS.length && u * CHECKS.length + k < TOTAL; k++) {
      const check = CHECKS[k];
      const failRate = check === 'loop_guard' && version === 'v2' ? 0.3 : 0.05;
      const passed = ((u * 7919 + k * 104729) % 1000) / 1000 >= failRate;
      const status = (u + k) % 97 === 0 ? 'error' : 'ok';
      batch.push({
        schema_version: 1, unit_id: `bench-${u}`, unit_kind: 'trace', check, check_version: 'h1', status,
        value: status === 'ok' ? (passed ? 1 : 0) : null, passed: status === 'ok' ? passed : null, explanation: '', method: k % 3 === 0 ? 'model' : 'deterministic',
        error: status === 'ok' ? null : 'judge timed out', judge_model: null, latency_ms: 3, input_tokens: 0, output_tokens: 0, cost_usd: 0,
        agent_name: AGENTS[u % AGENTS.length], agent_version: version, environment: 'prod', service: 'bench', unit_end_time_ms: end, created_at_ms: end + 1500,
      });
      if (batch.length >= BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function timeQueries(store: Store, make: (i: number) => string): Promise<{ p50: number; p95: number }> {
  const app = createApp({ store, log });
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t0 = performance.now();
    const res = await app.request(make(i));
    if (res.status !== 200) throw new Error(`${make(i)} answered ${res.status}: ${await res.text()}`);
    await res.text();
    times.push(performance.now() - t0);
  }
  return { p50: pct(times, 50), p95: pct(times, 95) };
}

const series = (i: number) => `/api/v1/series?check=${CHECKS[i % CHECKS.length]}&bucket=1h&from=${NOW - WEEK}&to=${NOW}&agent_version=${VERSIONS[i % VERSIONS.length]}`;
const PAGES = {
  overview: () => '/?window=7d',
  check: (i: number) => `/checks/${CHECKS[i % CHECKS.length]}?window=7d&bucket=1h`,
  compare: () => '/compare?a.agent_version=v1&b.agent_version=v2&window=7d',
};
const compare = (i: number) => `/api/v1/compare?check=${CHECKS[i % CHECKS.length]}&a.agent_version=v1&b.agent_version=v2&from=${NOW - WEEK}&to=${NOW}`;

interface Row {
  backend: string;
  load_s: number;
  series: { p50: number; p95: number };
  compare: { p50: number; p95: number };
  alerter_ms: number;
  pages: Record<keyof typeof PAGES, { p50: number; p95: number }>;
}

async function measure(backend: string, store: Store): Promise<Row> {
  await store.start();
  const t0 = performance.now();
  let written = 0;
  for (const b of scores()) {
    await store.writeScores(b);
    written += b.length;
    process.stdout.write(`\r${backend}: ${written.toLocaleString('en-US')} scores written`);
  }
  const loadS = (performance.now() - t0) / 1000;
  process.stdout.write('\n');
  const seriesT = await timeQueries(store, series);
  const compareT = await timeQueries(store, compare);
  const alerterMs = await benchAlerter(store, { checks: CHECKS, versions: VERSIONS, now: NOW });
  const pages = { overview: await timeQueries(store, PAGES.overview), check: await timeQueries(store, PAGES.check), compare: await timeQueries(store, PAGES.compare) };
  const row = { backend, load_s: loadS, series: seriesT, compare: compareT, alerter_ms: alerterMs, pages };
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

const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bench-'));
const duck = createDuckDbStore({ path: join(dir, 'bench.duckdb'), log });
try {
  rows.push(await measure('DuckDB (file)', duck));
} finally {
  await duck.shutdown();
  rmSync(dir, { recursive: true, force: true });
}

const chUrl = process.env.TRACECHECK_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
if (await clickHouseUp(chUrl)) {
  const database = `tc_bench_${process.pid}`;
  const ch = createClickHouseStore({ url: chUrl, database, log, requestTimeoutMs: 120_000 });
  try {
    rows.push(await measure('ClickHouse', ch));
  } finally {
    await ch.shutdown();
    const admin = createClient({ url: chUrl });
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
  }
} else {
  console.log(`ClickHouse at ${chUrl} did not answer: skipped`);
}

const ms = (x: number): string => `${x.toFixed(0)} ms`;
const table = [
  `## ${new Date().toISOString()} – ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `${TOTAL.toLocaleString('en-US')} scores (${CHECKS.length} checks × ${Math.ceil(TOTAL / CHECKS.length).toLocaleString('en-US')} units, 4 versions, one week); ${QUERIES} queries each, one at a time, through the API app. Targets: p95 < 200 ms on DuckDB, < 500 ms on ClickHouse.`,
  '',
  '| backend | load | series p50 / p95 | compare p50 / p95 | alerter, 100 rules | page / p50 / p95 | page /checks/{name} p50 / p95 | page /compare p50 / p95 |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.backend} | ${r.load_s.toFixed(1)} s | ${ms(r.series.p50)} / ${ms(r.series.p95)} | ${ms(r.compare.p50)} / ${ms(r.compare.p95)} | ${ms(r.alerter_ms)} | ${ms(r.pages.overview.p50)} / ${ms(r.pages.overview.p95)} | ${ms(r.pages.check.p50)} / ${ms(r.pages.check.p95)} | ${ms(r.pages.compare.p50)} / ${ms(r.pages.compare.p95)} |`,
  ),
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'monitoring.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# Monitoring benchmark\n\nSeries and compare latency over 1,000,000 scores, and one alerter evaluation of 100 rules.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
