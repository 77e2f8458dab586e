import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, createDuckDbStore, interpolatedQuantile, type Store, type UnitMetricRow } from '../../../shared/adapters/store/index.ts';
import type { Unit, UnitStep } from '../../../shared/contracts/schemas/index.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { T0, makeUnit } from './store-fixtures.ts';

// Step metrics (issue 26): figures per tool and per model across all the calls of all units, on
// both stores (ClickHouse 18.16: ARRAY JOIN over the split step text; DuckDB: unnest) against a
// reference computed here from the same steps. Latencies are multiples of 1/4 and costs of 1/4096,
// so sums are exact in any order and the stores must agree to the last bit.

const database = randomDatabaseName('tc_steps');
const admin = createAdminClient();
const MIN = 60_000;
const project = `steps-${randomUUID().slice(0, 8)}`;
const TOOLS = ['search', 'book', 'tab\there'];
const MODELS = ['gpt-4o', 'claude-sonnet-4'];

function units(): Unit[] {
  const out: Unit[] = [];
  for (let i = 0; i < 61; i++) {
    const steps: UnitStep[] = [];
    for (let k = 0; k < 1 + (i % 4); k++) {
      const j = i * 7 + k;
      steps.push({ type: 'llm', agent: 'a', start_ms: k, model: j % 5 === 0 ? null : MODELS[j % 2], provider: null, input_tokens: 100 + j, output_tokens: j % 9, latency_ms: ((j * 7919) % 4001) / 4, status: j % 17 === 0 ? 'error' : 'ok', cost_usd: j % 6 === 0 ? null : ((j * 104729) % 997) / 4096 });
      steps.push({ type: 'tool', agent: 'a', start_ms: k, name: TOOLS[j % 3], call_id: null, latency_ms: ((j * 613) % 2003) / 4, status: j % 7 === 0 ? 'error' : 'ok' });
    }
    steps.push({ type: 'handoff', agent: 'b', start_ms: 9, from: 'a' });
    out.push(makeUnit({ project, agent_name: i % 2 ? 'triage' : 'billing', agent_version: 'v1', end_time_ms: T0 + (i % 3) * 5 * MIN + i, start_time_ms: T0 + (i % 3) * 5 * MIN, steps, llm_calls: 1, duration_ms: 1, price_table: 't' }));
  }
  // A unit from before steps: no step rows.
  out.push(makeUnit({ project, agent_name: 'triage', end_time_ms: T0 + 2 }));
  return out;
}

type Figures = Omit<UnitMetricRow, 't' | 'group'>;
function figures(values: Array<number | null>): Figures {
  const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const n = xs.length;
  const sum = xs.reduce((a, b) => a + b, 0);
  return {
    units: values.length, n, sum: n ? sum : null, sum_sq: n ? xs.reduce((a, b) => a + b * b, 0) : null, mean: n ? sum / n : null, min: n ? xs[0] : null, max: n ? xs[n - 1] : null,
    p50: interpolatedQuantile(xs, 0.5), p95: interpolatedQuantile(xs, 0.95), p99: interpolatedQuantile(xs, 0.99),
  };
}
const strip = (r: UnitMetricRow): Figures => ({ units: r.units, n: r.n, sum: r.sum, sum_sq: r.sum_sq, mean: r.mean, min: r.min, max: r.max, p50: r.p50, p95: r.p95, p99: r.p99 });

const stores: Array<[string, () => Store]> = [
  ['duckdb', () => createDuckDbStore({ path: ':memory:', log: createSilentLogger() })],
  ['clickhouse 18.16', () => createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })],
];

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe.each(stores)('step metrics in SQL: %s', (_label, create) => {
  let store: Store;
  const all = units();
  const steps = all.flatMap((u) => (u.steps ?? []).map((s) => ({ u, s })));
  const tools = steps.flatMap(({ u, s }) => (s.type === 'tool' ? [{ u, s }] : []));
  const calls = steps.flatMap(({ u, s }) => (s.type === 'llm' ? [{ u, s }] : []));
  beforeAll(async () => {
    store = create();
    await store.start();
    await store.writeUnits(all);
  });
  afterAll(async () => {
    await store.shutdown();
  });

  it('latency per tool across every call (a name with a tab is kept, as a space)', async () => {
    const rows = await store.stepMetrics({ project, kind: 'tool', metric: 'latency_ms', groupByName: true });
    const names = [...new Set(tools.map(({ s }) => s.name.replace('\t', ' ')))];
    const expected = Object.fromEntries(names.map((n) => [n, figures(tools.filter(({ s }) => s.name.replace('\t', ' ') === n).map(({ s }) => s.latency_ms))]));
    expect(Object.fromEntries(rows.map((r) => [r.group, strip(r)]))).toEqual(expected);
    expect(names).toContain('tab here');
  });

  it('p95 latency of one tool per 5-minute bucket, for one agent', async () => {
    const rows = await store.stepMetrics({ project, kind: 'tool', metric: 'latency_ms', name: 'search', agent: 'triage', bucketMs: 5 * MIN, fromMs: T0, toMs: T0 + 15 * MIN });
    const chosen = tools.filter(({ u, s }) => s.name === 'search' && u.agent_name === 'triage');
    const buckets = [...new Set(chosen.map(({ u }) => Math.floor(u.end_time_ms / (5 * MIN)) * 5 * MIN))].sort((a, b) => a - b);
    expect(rows.map((r) => [r.t, strip(r)])).toEqual(buckets.map((t) => [t, figures(chosen.filter(({ u }) => Math.floor(u.end_time_ms / (5 * MIN)) * 5 * MIN === t).map(({ s }) => s.latency_ms))]));
  });

  it('cost, tokens, error rate and calls per model across calls (calls without a model under "")', async () => {
    for (const [metric, pick] of [
      ['cost_usd', (s: Extract<UnitStep, { type: 'llm' }>) => s.cost_usd],
      ['tokens', (s: Extract<UnitStep, { type: 'llm' }>) => s.input_tokens + s.output_tokens],
      ['error_rate', (s: Extract<UnitStep, { type: 'llm' }>) => (s.status === 'error' ? 1 : 0)],
      ['calls', () => 1],
    ] as const) {
      const rows = await store.stepMetrics({ project, kind: 'llm', metric, groupByName: true });
      const names = [...new Set(calls.map(({ s }) => s.model ?? ''))];
      const expected = Object.fromEntries(names.map((n) => [n, figures(calls.filter(({ s }) => (s.model ?? '') === n).map(({ s }) => pick(s)))]));
      expect(Object.fromEntries(rows.map((r) => [r.group, strip(r)])), metric).toEqual(expected);
    }
  });
});
