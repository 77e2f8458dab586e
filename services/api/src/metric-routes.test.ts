import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore, interpolatedQuantile } from '../../../shared/adapters/store/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createApp } from './create-app.ts';
import { openApiChecker } from './testing/openapi-check.ts';

// The metrics endpoints over a real (in-memory) DuckDB store, every answer checked against the
// OpenAPI document. The store's SQL is tested against a reference on both stores in
// test/integration/store/unit-metrics.test.ts; here: parameters, buckets, stats and grouping.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const HOUR = 3_600_000;
const app = createApp({ store, log, now: () => NOW });

function unit(id: string, o: Partial<Unit>): Unit {
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'planner', agent_version: 'v1', service: null, environment: 'prod', conversation_id: null, model: 'gpt-4o',
    model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 100, output_tokens: 10 }, errors: [], truncated: false, span_count: 3, start_time_ms: NOW - 2 * HOUR, end_time_ms: NOW - 2 * HOUR + 1000, assembled_at_ms: NOW,
    duration_ms: 1000, llm_calls: 2, tool_call_count: 1, tool_errors: 0, cost_usd: 0.25, unpriced_llm_calls: 0, price_table: 't', tokens_by_model: {}, steps: [], ...o,
  };
}

// planner: 4 runs in the hour before last (durations 100, 200, 300, 1000 ms), one of them failed;
// searcher: 2 runs an hour ago, on another model. Another project's unit must never show.
const units = [
  unit('p1', { duration_ms: 100, cost_usd: 0.25 }),
  unit('p2', { duration_ms: 200, cost_usd: 0.5 }),
  unit('p3', { duration_ms: 300, cost_usd: 0.25, errors: [{ span_id: 'a'.repeat(16), message: 'boom' }] }),
  unit('p4', { duration_ms: 1000, cost_usd: 1, tool_errors: 1 }),
  unit('s1', { agent_name: 'searcher', model: 'claude-sonnet-4', duration_ms: 50, cost_usd: 0.125, end_time_ms: NOW - HOUR + 10 }),
  unit('s2', { agent_name: 'searcher', model: 'claude-sonnet-4', duration_ms: 150, cost_usd: 0.125, end_time_ms: NOW - HOUR + 20 }),
  unit('x1', { project: 'someone-else', duration_ms: 99_999 }),
];

let spec: Awaited<ReturnType<typeof openApiChecker>>;
beforeAll(async () => {
  await store.start();
  await store.writeUnits(units);
  spec = await openApiChecker(app);
});
afterAll(() => store.shutdown());

async function get(path: string, docPath: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request(path);
  const body = (await res.json()) as Record<string, unknown>;
  spec.check('get', docPath, res.status, body);
  return { status: res.status, body };
}

describe('GET /api/v1/metrics/series', () => {
  it('gives p95 duration per hour, empty hours included', async () => {
    const { status, body } = await get(`/api/v1/metrics/series?metric=duration_ms&stat=p95&bucket=1h&from=${NOW - 3 * HOUR}&to=${NOW}`, '/api/v1/metrics/series');
    expect(status).toBe(200);
    expect(body.points).toEqual([
      { t: NOW - 3 * HOUR, value: null, n: 0, units: 0 },
      { t: NOW - 2 * HOUR, value: interpolatedQuantile([100, 200, 300, 1000], 0.95), n: 4, units: 4 },
      { t: NOW - HOUR, value: interpolatedQuantile([50, 150], 0.95), n: 2, units: 2 },
    ]);
    expect(interpolatedQuantile([100, 200, 300, 1000], 0.95)).toBeCloseTo(895, 9);
  });

  it('sums cost and counts volume, filtered by agent and model', async () => {
    const cost = await get(`/api/v1/metrics/series?metric=cost_usd&stat=sum&bucket=1h&from=${NOW - 2 * HOUR}&to=${NOW}&agent=planner`, '/api/v1/metrics/series');
    expect((cost.body.points as Array<{ value: number }>).map((p) => p.value)).toEqual([2, 0]);
    const volume = await get(`/api/v1/metrics/series?metric=volume&stat=count&bucket=1h&from=${NOW - 2 * HOUR}&to=${NOW}&model=claude-sonnet-4`, '/api/v1/metrics/series');
    expect((volume.body.points as Array<{ value: number }>).map((p) => p.value)).toEqual([0, 2]);
  });

  it('refuses an unknown metric or stat, and too many points', async () => {
    expect((await get('/api/v1/metrics/series?metric=latency', '/api/v1/metrics/series')).status).toBe(400);
    expect((await get('/api/v1/metrics/series?metric=duration_ms&stat=p90', '/api/v1/metrics/series')).status).toBe(400);
    expect((await get(`/api/v1/metrics/series?metric=duration_ms&bucket=1m&from=0&to=${NOW}`, '/api/v1/metrics/series')).status).toBe(400);
  });
});

describe('GET /api/v1/metrics/summary', () => {
  it('per agent: volume, error rate, latency percentiles, cost, tokens, calls and tool errors', async () => {
    const { status, body } = await get('/api/v1/metrics/summary?group_by=agent', '/api/v1/metrics/summary');
    expect(status).toBe(200);
    const q = (v: number[], p: number) => interpolatedQuantile(v, p);
    expect(body.groups).toEqual([
      {
        group: 'planner', units: 4, error_rate: 0.25,
        duration_ms: { p50: q([100, 200, 300, 1000], 0.5), p95: q([100, 200, 300, 1000], 0.95), p99: q([100, 200, 300, 1000], 0.99), mean: 400 },
        cost_usd: { sum: 2, mean: 0.5, p95: q([0.25, 0.25, 0.5, 1], 0.95) },
        tokens: { sum: 440, mean: 110 }, llm_calls: { mean: 2 }, tool_errors: { sum: 1 },
      },
      {
        group: 'searcher', units: 2, error_rate: 0,
        duration_ms: { p50: 100, p95: q([50, 150], 0.95), p99: q([50, 150], 0.99), mean: 100 },
        cost_usd: { sum: 0.25, mean: 0.125, p95: 0.125 },
        tokens: { sum: 220, mean: 110 }, llm_calls: { mean: 2 }, tool_errors: { sum: 0 },
      },
    ]);
  });

  it('groups by model and caps the groups', async () => {
    const { body } = await get('/api/v1/metrics/summary?group_by=model&limit=1', '/api/v1/metrics/summary');
    expect((body.groups as Array<{ group: string; units: number }>).map((g) => [g.group, g.units])).toEqual([['gpt-4o', 4]]);
  });
});
