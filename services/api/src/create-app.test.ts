import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/logging/index.ts';
import type { Score, Unit } from '../../../shared/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/store/index.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const app = createApp({ store, log });

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const unit: Unit = {
  schema_version: 1, unit_id: TRACE, kind: 'trace', trace_ids: [TRACE], agent_name: 'a', agent_version: '1', service: 's', environment: 'prod',
  conversation_id: null, model: 'm', model_input: [], model_output: 'hi', message_history: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }],
  tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
  usage: { input_tokens: 1, output_tokens: 1 }, errors: [], truncated: false, span_count: 1, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000,
};
const score = (check: string, createdAtMs: number): Score => ({
  schema_version: 1, unit_id: TRACE, unit_kind: 'trace', check, check_version: 'v1', status: 'ok', value: 1, passed: true, explanation: 'fine',
  method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'a',
  agent_version: '1', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: createdAtMs,
});

beforeAll(async () => {
  await store.start();
  await store.writeUnits([unit]);
  await store.writeScores([score('alpha', Date.UTC(2026, 0, 1)), score('beta', Date.UTC(2026, 0, 2))]);
});
afterAll(() => store.shutdown());

describe('GET /api/v1/units/:unitId', () => {
  it('returns the unit with its messages and scores', async () => {
    const res = await app.request(`/api/v1/units/${TRACE}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { unit: Unit & { messages: unknown }; scores: Array<Score & { created_at: string }> };
    expect(body.unit.messages).toEqual(unit.message_history);
    expect(body.unit.unit_id).toBe(TRACE);
    expect(body.scores.map((s) => [s.check, s.value, s.passed, s.method, s.created_at])).toEqual([
      ['beta', 1, true, 'deterministic', '2026-01-02T00:00:00.000Z'],
      ['alpha', 1, true, 'deterministic', '2026-01-01T00:00:00.000Z'],
    ]);
  });

  it('accepts an upper-case trace id', async () => {
    expect((await app.request(`/api/v1/units/${TRACE.toUpperCase()}`)).status).toBe(200);
  });

  it('answers 404 with a message for an unknown unit, whatever its characters', async () => {
    const res = await app.request(`/api/v1/units/${encodeURIComponent("x'; DROP TABLE units; --")}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: `no unit with id "x'; DROP TABLE units; --"` });
  });
});

describe('GET /api/v1/scores', () => {
  it('filters by check, time range (from inclusive, to exclusive) and limit', async () => {
    const get = async (q: string) => ((await (await app.request(`/api/v1/scores?${q}`)).json()) as { scores: Score[] }).scores.map((s) => s.check);
    expect(await get('')).toEqual(['beta', 'alpha']);
    expect(await get('check=alpha')).toEqual(['alpha']);
    expect(await get('from=2026-01-02T00:00:00Z')).toEqual(['beta']);
    expect(await get(`to=${Date.UTC(2026, 0, 2)}`)).toEqual(['alpha']);
    expect(await get('limit=1')).toEqual(['beta']);
  });

  it('rejects bad filters with 400 and says which', async () => {
    const res = await app.request('/api/v1/scores?limit=0&from=yesterday&colour=red');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { issues: string[] };
    expect(body.issues.some((i) => i.startsWith('query.limit'))).toBe(true);
    expect(body.issues.some((i) => i.startsWith('query.from'))).toBe(true);
    expect(body.issues.some((i) => i.includes('colour'))).toBe(true);
  });
});
