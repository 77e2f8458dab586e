import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore, interpolatedQuantile } from '../../../shared/adapters/store/index.ts';
import type { Unit, UnitStep } from '../../../shared/contracts/schemas/index.ts';
import { createApp } from './create-app.ts';
import { openApiChecker } from './testing/openapi-check.ts';

// The step metrics endpoints over a real (in-memory) DuckDB store, answers checked against the
// OpenAPI document; the SQL of both stores against a reference in test/integration/store/step-metrics.test.ts.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const HOUR = 3_600_000;
const app = createApp({ store, log, now: () => NOW });

const tool = (name: string, latency: number, error = false): UnitStep => ({ type: 'tool', agent: null, start_ms: 0, name, call_id: null, latency_ms: latency, status: error ? 'error' : 'ok' });
const call = (model: string, latency: number, cost: number): UnitStep => ({ type: 'llm', agent: null, start_ms: 0, model, provider: null, input_tokens: 100, output_tokens: 10, latency_ms: latency, status: 'ok', cost_usd: cost });

function unit(id: string, steps: UnitStep[], o: Partial<Unit> = {}): Unit {
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'planner', agent_version: 'v1', service: null, environment: 'prod', conversation_id: null, model: 'gpt-4o',
    model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 100, output_tokens: 10 }, errors: [], truncated: false, span_count: 3, start_time_ms: NOW - 2 * HOUR, end_time_ms: NOW - 2 * HOUR + 1000, assembled_at_ms: NOW,
    duration_ms: 1000, llm_calls: 1, tool_call_count: 1, tool_errors: 0, cost_usd: 0.25, unpriced_llm_calls: 0, price_table: 't', tokens_by_model: {}, steps, ...o,
  };
}

let spec: Awaited<ReturnType<typeof openApiChecker>>;
beforeAll(async () => {
  await store.start();
  await store.writeUnits([
    unit('u1', [call('gpt-4o', 800, 0.5), tool('search', 100), tool('search', 300, true), tool('<b>book</b>', 50)]),
    unit('u2', [call('gpt-4o', 1200, 0.25), call('claude-sonnet-4', 400, 0.125), tool('search', 200)], { end_time_ms: NOW - HOUR + 5 }),
    unit('x', [tool('search', 99_999)], { project: 'someone-else' }),
  ]);
  spec = await openApiChecker(app);
});
afterAll(() => store.shutdown());

async function get(path: string, docPath: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request(path);
  const body = (await res.json()) as Record<string, unknown>;
  spec.check('get', docPath, res.status, body);
  return { status: res.status, body };
}

describe('GET /api/v1/metrics/steps/series', () => {
  it('p95 latency of the tool search per hour, across every call', async () => {
    const { status, body } = await get(`/api/v1/metrics/steps/series?kind=tool&name=search&metric=latency_ms&stat=p95&bucket=1h&from=${NOW - 3 * HOUR}&to=${NOW}`, '/api/v1/metrics/steps/series');
    expect(status).toBe(200);
    expect(body.points).toEqual([
      { t: NOW - 3 * HOUR, value: null, n: 0, units: 0 },
      { t: NOW - 2 * HOUR, value: interpolatedQuantile([100, 300], 0.95), n: 2, units: 2 },
      { t: NOW - HOUR, value: 200, n: 1, units: 1 },
    ]);
  });

  it('refuses an unknown kind', async () => {
    expect((await app.request('/api/v1/metrics/steps/series?kind=handoff')).status).toBe(400);
  });
});

describe('GET /api/v1/metrics/steps/summary', () => {
  it('per tool: calls, error rate; per model: cost', async () => {
    const tools = await get(`/api/v1/metrics/steps/summary?kind=tool&metric=error_rate&from=${NOW - 3 * HOUR}&to=${NOW}`, '/api/v1/metrics/steps/summary');
    expect((tools.body.groups as Array<Record<string, unknown>>).map((g) => [g.name, g.calls, g.mean])).toEqual([
      ['search', 3, 1 / 3],
      ['<b>book</b>', 1, 0],
    ]);
    const models = await get(`/api/v1/metrics/steps/summary?kind=llm&metric=cost_usd&from=${NOW - 3 * HOUR}&to=${NOW}`, '/api/v1/metrics/steps/summary');
    expect((models.body.groups as Array<Record<string, unknown>>).map((g) => [g.name, g.calls, g.sum, g.p50])).toEqual([
      ['gpt-4o', 2, 0.75, 0.375],
      ['claude-sonnet-4', 1, 0.125, 0.125],
    ]);
  });
});
