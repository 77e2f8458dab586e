import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { compareMetricCounts, medianOfCounts } from './compare-metrics.ts';
import { createApp } from './create-app.ts';
import { openApiChecker } from './testing/openapi-check.ts';

const ones = (xs: readonly number[]) => xs.map((value) => ({ value, count: 1 }));

describe('compareMetricCounts', () => {
  it('B slower than A: U, exact p and the Hodges–Lehmann interval (scipy and a brute-force reference)', () => {
    // A = [11, 12, 13, 14, 15, 19], B = [16, 17, 18, 20, 21, 22, 25]: scipy mannwhitneyu(B, A) U = 39,
    // exact two-sided p = 0.008158508158508158; shift 6 in [2, 10] at 96.5%.
    const r = compareMetricCounts('duration_ms', ones([11, 12, 13, 14, 15, 19]), ones([16, 17, 18, 20, 21, 22, 25]), 0.05);
    expect(r).toEqual({
      metric: 'duration_ms',
      a: { n: 6, median: 13.5 },
      b: { n: 7, median: 20 },
      test: 'mann_whitney_u',
      method: 'exact',
      u: 39,
      p_value: expect.closeTo(0.008158508158508158, 12) as number,
      shift: { estimate: 6, ci: [2, 10], confidence: expect.closeTo(0.965034965034965, 12) as number },
      verdict: 'higher',
    });
    expect(compareMetricCounts('duration_ms', ones([16, 17, 18, 20, 21, 22, 25]), ones([11, 12, 13, 14, 15, 19]), 0.05).verdict).toBe('lower');
  });

  it('too few units or too many values', () => {
    expect(compareMetricCounts('cost_usd', ones([1]), ones([2, 3]), 0.05).verdict).toBe('insufficient data');
    const many = Array.from({ length: 200_001 }, (_, i) => ({ value: i, count: 1 }));
    expect(compareMetricCounts('cost_usd', many, ones([2, 3]), 0.05)).toMatchObject({ verdict: 'too many values', p_value: null, a: { n: 200_001, median: null } });
  });

  it('medianOfCounts', () => {
    expect(medianOfCounts([])).toBeNull();
    expect(medianOfCounts([{ value: 1, count: 2 }, { value: 5, count: 1 }])).toBe(1);
    expect(medianOfCounts([{ value: 1, count: 2 }, { value: 5, count: 2 }])).toBe(3);
  });
});

// The compare endpoint over a real (in-memory) DuckDB store: v2 runs slower and costs more than v1.
const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const app = createApp({ store, log, now: () => NOW });

function unit(id: string, version: string, duration: number, cost: number): Unit {
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'planner', agent_version: version, service: null, environment: 'prod', conversation_id: null, model: 'gpt-4o',
    model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 100, output_tokens: 10 }, errors: [], truncated: false, span_count: 3, start_time_ms: NOW - 60_000 - duration, end_time_ms: NOW - 60_000, assembled_at_ms: NOW,
    duration_ms: duration, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: cost, unpriced_llm_calls: 0, price_table: 't', tokens_by_model: {}, steps: [],
  };
}

let spec: Awaited<ReturnType<typeof openApiChecker>>;
beforeAll(async () => {
  await store.start();
  const a = [11, 12, 13, 14, 15, 19].map((d, i) => unit(`a${i}`, 'v1', d * 100, 0.01));
  const b = [16, 17, 18, 20, 21, 22, 25].map((d, i) => unit(`b${i}`, 'v2', d * 100, 0.01));
  await store.writeUnits([...a, ...b]);
  spec = await openApiChecker(app);
});
afterAll(() => store.shutdown());

describe('GET /api/v1/compare metrics', () => {
  it('ranks B against A on duration (exact), cost (all tied) and tokens', async () => {
    const res = await app.request(`/api/v1/compare?a.agent_version=v1&b.agent_version=v2&from=${NOW - 3_600_000}&to=${NOW}`);
    const body = (await res.json()) as { metrics: Array<Record<string, unknown>> };
    spec.check('get', '/api/v1/compare', res.status, body);
    expect(res.status).toBe(200);
    const [duration, cost, tokens] = body.metrics;
    expect(duration).toMatchObject({ metric: 'duration_ms', a: { n: 6, median: 1350 }, b: { n: 7, median: 2000 }, method: 'exact', u: 39, shift: { estimate: 600, ci: [200, 1000] }, verdict: 'higher' });
    expect(cost).toMatchObject({ metric: 'cost_usd', a: { n: 6, median: 0.01 }, b: { n: 7, median: 0.01 }, method: 'normal', p_value: 1, shift: { estimate: 0, ci: [0, 0] }, verdict: 'no significant difference' });
    expect(tokens).toMatchObject({ metric: 'tokens', verdict: 'no significant difference' });
  });
});

describe('the compare page', () => {
  it('shows the latency and cost section with the API\'s figures', async () => {
    const res = await app.request('/compare?a.agent_version=v1&b.agent_version=v2&window=24h');
    expect(res.status).toBe(200);
    const html = await res.text();
    const row = /<tr data-metric="duration_ms" data-verdict="higher">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? '';
    expect(row).toContain('1,350');
    expect(row).toContain('2,000');
    expect(row).toContain('200 – 1,000');
    expect(html).toContain('data-compare-metrics');
  });
});
