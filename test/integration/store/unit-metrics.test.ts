import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createClickHouseStore, createDuckDbStore, interpolatedQuantile, type Store, type UnitMetricRow } from '../../../shared/adapters/store/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';
import { T0, makeUnit } from './store-fixtures.ts';

// Unit metrics (issue 26) on both stores against a reference computed here from the same units:
// counts, sums, means, extremes and p50/p95/p99 (linear interpolation between closest ranks, as
// DuckDB's quantile_cont), per bucket and per group. Values are multiples of 1/4, so every sum is
// exact in any order and the stores must agree to the last bit.

const database = randomDatabaseName('tc_metrics');
const admin = createAdminClient();
const MIN = 60_000;
const project = `metrics-${randomUUID().slice(0, 8)}`;

/** A deterministic spread of durations, costs and errors over 3 agents, 2 versions, 2 models and 3 buckets. */
function units(): Unit[] {
  const out: Unit[] = [];
  for (let i = 0; i < 157; i++) {
    const agent = ['triage', 'billing', 'search'][i % 3];
    const duration = ((i * 7919) % 4001) / 4 + 100;
    const cost = ((i * 104729) % 997) / 4096;
    out.push(
      makeUnit({
        project,
        agent_name: agent,
        agent_version: i % 5 === 0 ? 'v2' : 'v1',
        model: i % 2 === 0 ? 'gpt-4o' : 'claude-sonnet-4',
        end_time_ms: T0 + (i % 3) * 5 * MIN + i,
        start_time_ms: T0 + (i % 3) * 5 * MIN + i - duration,
        usage: { input_tokens: 100 + i, output_tokens: 10 + (i % 7) },
        errors: i % 11 === 0 ? [{ span_id: 'a'.repeat(16), message: 'boom' }] : [],
        duration_ms: duration,
        cost_usd: cost,
        llm_calls: 1 + (i % 4),
        tool_call_count: i % 3,
        tool_errors: i % 13 === 0 ? 1 : 0,
        price_table: 'test',
      }),
    );
  }
  // A unit from before issue 26: it counts in volume, and in no other metric.
  out.push(makeUnit({ project, agent_name: 'triage', agent_version: 'v1', end_time_ms: T0 + 1 }));
  return out;
}

type Pick = (u: Unit) => number | null;
function reference(all: readonly Unit[], pick: Pick, key: (u: Unit) => string): Map<string, Omit<UnitMetricRow, 't' | 'group'>> {
  const groups = new Map<string, Unit[]>();
  for (const u of all) groups.set(key(u), [...(groups.get(key(u)) ?? []), u]);
  const out = new Map<string, Omit<UnitMetricRow, 't' | 'group'>>();
  for (const [k, us] of groups) {
    const values = us.map(pick).filter((v): v is number => v !== null).sort((a, b) => a - b);
    const sum = values.reduce((a, b) => a + b, 0);
    const n = values.length;
    out.set(k, {
      units: us.length,
      n,
      sum: n ? sum : null,
      sum_sq: n ? values.reduce((a, b) => a + b * b, 0) : null,
      mean: n ? sum / n : null,
      min: n ? values[0] : null,
      max: n ? values[n - 1] : null,
      p50: interpolatedQuantile(values, 0.5),
      p95: interpolatedQuantile(values, 0.95),
      p99: interpolatedQuantile(values, 0.99),
    });
  }
  return out;
}

const stores: Array<[string, () => Store]> = [
  ['duckdb', () => createDuckDbStore({ path: ':memory:', log: createSilentLogger() })],
  ['clickhouse 18.16', () => createClickHouseStore({ url: CLICKHOUSE_URL, database, log: createSilentLogger(), requestTimeoutMs: REQUEST_TIMEOUT_MS })],
];

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe.each(stores)('unit metrics in SQL: %s', (_label, create) => {
  let store: Store;
  const all = units();
  beforeAll(async () => {
    store = create();
    await store.start();
    await store.writeUnits(all);
  });
  afterAll(async () => {
    await store.shutdown();
  });

  const figures = (r: UnitMetricRow): Omit<UnitMetricRow, 't' | 'group'> => ({ units: r.units, n: r.n, sum: r.sum, sum_sq: r.sum_sq, mean: r.mean, min: r.min, max: r.max, p50: r.p50, p95: r.p95, p99: r.p99 });

  it('duration_ms per 5-minute bucket equals the reference, percentiles included', async () => {
    const rows = await store.unitMetrics({ project, metric: 'duration_ms', bucketMs: 5 * MIN, fromMs: T0, toMs: T0 + 15 * MIN });
    const ref = reference(all, (u) => (u.llm_calls === undefined ? null : u.duration_ms!), (u) => String(Math.floor(u.end_time_ms / (5 * MIN)) * 5 * MIN));
    expect(rows.map((r) => [r.t, figures(r)])).toEqual([...ref].sort().map(([t, f]) => [Number(t), f]));
  });

  it('cost_usd, tokens and error rate per agent over the window, largest group first', async () => {
    for (const [metric, pick] of [
      ['cost_usd', (u: Unit) => (u.llm_calls === undefined ? null : u.cost_usd!)],
      ['tokens', (u: Unit) => (u.llm_calls === undefined ? null : u.usage.input_tokens! + u.usage.output_tokens!)],
      ['error_rate', (u: Unit) => (u.llm_calls === undefined ? null : u.errors.length > 0 ? 1 : 0)],
      ['volume', () => 1],
    ] as const) {
      const rows = await store.unitMetrics({ project, metric, groupBy: 'agent' });
      const ref = reference(all, pick, (u) => u.agent_name!);
      expect(Object.fromEntries(rows.map((r) => [r.group, figures(r)])), metric).toEqual(Object.fromEntries(ref));
      expect(rows[0].group).toBe('triage');
    }
  });

  it('filters by version and model, and answers one figure for a window (what an alert rule asks)', async () => {
    const [row] = await store.unitMetrics({ project, metric: 'duration_ms', agent: 'billing', agentVersion: 'v2', model: 'gpt-4o', fromMs: T0, toMs: T0 + 15 * MIN });
    const ref = reference(all.filter((u) => u.agent_name === 'billing' && u.agent_version === 'v2' && u.model === 'gpt-4o'), (u) => u.duration_ms ?? null, () => 'all');
    expect(figures(row)).toEqual(ref.get('all'));
    expect(await store.unitMetrics({ project, metric: 'duration_ms', fromMs: T0 + 60 * MIN })).toEqual([]);
  });

  it('metricValues: distinct values rounded half up with their counts, per version (what compare ranks)', async () => {
    for (const [metric, pick, scale] of [
      ['duration_ms', (u: Unit) => u.duration_ms, 1],
      ['cost_usd', (u: Unit) => u.cost_usd, 1e6],
    ] as const) {
      for (const version of ['v1', 'v2']) {
        const counts = new Map<number, number>();
        for (const u of all) {
          const v = pick(u);
          if (u.agent_version !== version || u.llm_calls === undefined || v === undefined) continue;
          const r = Math.floor(v * scale + 0.5) / scale;
          counts.set(r, (counts.get(r) ?? 0) + 1);
        }
        const expected = [...counts].sort((x, y) => x[0] - y[0]).map(([value, count]) => ({ value, count }));
        expect(await store.metricValues({ project, metric, agentVersion: version, maxValues: 1000 }), `${metric} ${version}`).toEqual(expected);
      }
    }
    expect(await store.metricValues({ project, metric: 'duration_ms', maxValues: 3 })).toHaveLength(3);
  });
});
