// The dashboard's check page at 1-minute buckets: GET /checks/{name}?window=24h&bucket=1m through
// the real API app, one at a time and five at once, over 200,000 scores of the last day (4 checks,
// 3 agents × 4 versions), on DuckDB (a file) and on ClickHouse (TRACECHECK_TEST_CLICKHOUSE_URL,
// default http://127.0.0.1:18123; skipped when unreachable). Prints the load average beside each
// figure. `node bin/run-ts.mjs bench/check-page.ts`.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { Score } from '../shared/contracts/schemas/index.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../shared/adapters/store/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createApp } from '../services/api/src/index.ts';

const TOTAL = 200_000;
const CHECKS = ['loop_guard', 'task_completed', 'answer_relevance', 'tool_errors'];
const AGENTS = ['booking-agent', 'support-agent', 'search-agent'];
const VERSIONS = ['v1', 'v2', 'v3', 'v4'];
const DAY = 86_400_000;
const NOW = Date.now();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const log = createSilentLogger();
const PAGE = `/checks/loop_guard?window=24h&bucket=1m`;

function batches(): Score[][] {
  const out: Score[][] = [];
  let batch: Score[] = [];
  const units = TOTAL / CHECKS.length;
  for (let u = 0; u < units; u++) {
    const end = NOW - DAY + Math.floor((u / units) * DAY);
    CHECKS.forEach((check, k) => {
      const passed = ((u * 7919 + k * 104729) % 1000) / 1000 >= 0.1;
      batch.push({
        schema_version: 1, unit_id: `cp-${u}`, unit_kind: 'trace', check, check_version: 'h1', status: 'ok', value: passed ? 1 : 0, passed, explanation: passed ? '' : 'failed',
        method: 'deterministic', error: null, judge_model: null, latency_ms: 3, input_tokens: 0, output_tokens: 0, cost_usd: 0,
        agent_name: AGENTS[u % AGENTS.length], agent_version: VERSIONS[u % VERSIONS.length], environment: 'prod', service: 'bench', unit_end_time_ms: end, created_at_ms: end + 1500,
      });
    });
    if (batch.length >= 50_000) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length) out.push(batch);
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');

async function get(app: ReturnType<typeof createApp>): Promise<number> {
  const t0 = performance.now();
  const res = await app.request(PAGE);
  if (res.status !== 200) throw new Error(`${PAGE} answered ${res.status}`);
  await res.text();
  return performance.now() - t0;
}

async function measure(backend: string, store: Store): Promise<void> {
  await store.start();
  for (const b of batches()) await store.writeScores(b);
  const app = createApp({ store, log });
  await get(app);
  const before = load();
  const one: number[] = [];
  for (let i = 0; i < ROUNDS; i++) one.push(await get(app));
  const five: number[] = [];
  for (let i = 0; i < Math.max(2, ROUNDS / 5); i++) {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 5 }, () => get(app)));
    five.push(performance.now() - t0);
  }
  console.log(`${backend}: one at a time median ${median(one).toFixed(0)} ms (min ${Math.min(...one).toFixed(0)}); five at once, all answered: median ${median(five).toFixed(0)} ms (min ${Math.min(...five).toFixed(0)}); load average ${before} → ${load()}`);
}

console.log(`check page bench: ${PAGE} over ${TOTAL.toLocaleString('en-US')} scores; ${ROUNDS} rounds; load average ${load()}`);
const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bench-'));
const duck = createDuckDbStore({ path: join(dir, 'bench.duckdb'), log });
try {
  await measure('DuckDB (file)', duck);
} finally {
  await duck.shutdown();
  rmSync(dir, { recursive: true, force: true });
}
const chUrl = process.env.TRACECHECK_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
const database = `tc_bench_check_page_${process.pid}`;
const ch = createClickHouseStore({ url: chUrl, database, log, requestTimeoutMs: 120_000 });
try {
  if (process.env.BENCH_SKIP_CLICKHOUSE !== 'true') await measure('ClickHouse', ch);
} finally {
  await ch.shutdown();
  const admin = createClient({ url: chUrl });
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
}
