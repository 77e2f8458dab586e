import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../../shared/adapters/store/index.ts';
import type { Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createApp } from '../create-app.ts';

// The agents pages show the numbers of GET /api/v1/metrics/summary, and names from traces as text.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const app = createApp({ store, log, now: () => NOW });
const HOSTILE = '<script>alert(1)</script>';

const unit = (id: string, o: Partial<Unit>): Unit => ({
  schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'planner', agent_version: 'v1', service: null, environment: null, conversation_id: null, model: 'gpt-4o',
  model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
  usage: { input_tokens: 10, output_tokens: 1 }, errors: [], truncated: false, span_count: 2, start_time_ms: NOW - 3_600_000, end_time_ms: NOW - 3_600_000 + 2000, assembled_at_ms: NOW,
  duration_ms: 2000, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: 0.5, ...o,
});

beforeAll(async () => {
  await store.start();
  await store.writeUnits([unit('a', {}), unit('b', { agent_version: 'v2', model: HOSTILE, duration_ms: 4000, cost_usd: 1.5 })]);
});
afterAll(() => store.shutdown());

describe('agent pages', () => {
  it('lists agents with the API summary figures', async () => {
    const html = await (await app.request('/agents')).text();
    const api = (await (await app.request('/api/v1/metrics/summary?group_by=agent')).json()) as { groups: Array<{ units: number; cost_usd: { sum: number } }> };
    expect(api.groups[0]).toMatchObject({ units: 2, cost_usd: { sum: 2 } });
    expect(html).toContain('<td class="num" data-units>2</td>');
    expect(html).toContain('<td class="num" data-cost>$2.0000</td>');
  });

  it("shows one agent's versions and models, a hostile model name as text", async () => {
    const res = await app.request('/agents/planner');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain(HOSTILE);
    expect(html).toMatch(/data-group="v2">.*data-p95>4\.00 s</);
    expect(html).toContain('data-operations');
  });
});
