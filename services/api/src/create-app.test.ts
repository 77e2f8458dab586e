import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
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

describe('revisions of a unit', () => {
  // A store of its own: these scores stay out of the listings tested below.
  const revStore = createDuckDbStore({ path: ':memory:', log });
  const revApp = createApp({ store: revStore, log });
  const ID = '1'.repeat(32);
  const v1: Unit = { ...unit, unit_id: ID, trace_ids: [ID], model_output: 'first answer', assembled_at_ms: Date.UTC(2026, 0, 1) };
  const v2: Unit = { ...v1, model_output: 'changed by a late span', span_count: 2, assembled_at_ms: Date.UTC(2026, 0, 2) };
  const scoreOf = (passed: boolean): Score => ({ ...score('alpha', Date.UTC(2026, 0, 3)), unit_id: ID, passed, value: passed ? 1 : 0 });
  type Body = { unit: Unit; scores: Array<Score & { unit_revision: number }>; revision: number; latest_revision: number };
  type Revisions = { unit_id: string; revisions: Array<{ revision: number; latest: boolean; span_count: number; changed: string[] | null; assembled_at: string; scores: Array<Score & { unit_revision: number }> }> };

  beforeAll(async () => {
    await revStore.start();
    await revStore.writeScoredUnits([{ unit: v1, scores: [scoreOf(true)] }]);
    await revStore.writeScoredUnits([{ unit: v2, scores: [scoreOf(false)] }]);
  });
  afterAll(() => revStore.shutdown());

  it('shows the latest revision by default and an earlier one when asked, each with its own scores', async () => {
    const latest = (await (await revApp.request(`/api/v1/units/${ID}`)).json()) as Body;
    expect([latest.revision, latest.latest_revision, latest.unit.model_output]).toEqual([2, 2, 'changed by a late span']);
    expect(latest.scores.map((s) => [s.check, s.unit_revision, s.passed])).toEqual([['alpha', 2, false]]);
    const first = (await (await revApp.request(`/api/v1/units/${ID}?revision=1`)).json()) as Body;
    expect([first.revision, first.latest_revision, first.unit.model_output]).toEqual([1, 2, 'first answer']);
    expect(first.scores.map((s) => [s.check, s.unit_revision, s.passed])).toEqual([['alpha', 1, true]]);
    const missing = await revApp.request(`/api/v1/units/${ID}?revision=3`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: `unit "${ID}" has no revision 3 (its latest is 2)` });
    expect((await revApp.request(`/api/v1/units/${ID}?revision=0`)).status).toBe(400);
  });

  it('lists every revision with what changed and its scores', async () => {
    const res = await revApp.request(`/api/v1/units/${ID}/revisions`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Revisions;
    expect(body.unit_id).toBe(ID);
    expect(body.revisions.map((r) => [r.revision, r.latest, r.span_count, r.changed, r.assembled_at, r.scores.map((s) => [s.unit_revision, s.passed])])).toEqual([
      [1, false, 1, null, '2026-01-01T00:00:00.000Z', [[1, true]]],
      [2, true, 2, ['model_output', 'span_count'], '2026-01-02T00:00:00.000Z', [[2, false]]],
    ]);
    expect((await revApp.request(`/api/v1/units/${'2'.repeat(32)}/revisions`)).status).toBe(404);
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

describe('hostile paging input', () => {
  const cursor = (position: unknown) => Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');

  it('caps a page at 1,000 rows with a 400 that says so', async () => {
    const res = await app.request('/api/v1/scores?limit=10000');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { issues: string[] }).issues).toEqual(['query.limit: at most 1000 rows a page; follow next_cursor for more']);
    expect((await app.request('/api/v1/units?limit=1001')).status).toBe(400);
    expect((await app.request('/api/v1/scores?limit=1000')).status).toBe(200);
  });

  it('answers 400, not 500, for cursors and times outside the dates a clock can show', async () => {
    for (const path of [
      `/api/v1/units?cursor=${cursor({ end_time_ms: 1e308, unit_id: 'x' })}`,
      `/api/v1/scores?cursor=${cursor({ created_at_ms: 1e308, unit_id: 'x', check: 'c', check_version: 'v' })}`,
      `/api/v1/units?cursor=${cursor({ end_time_ms: -1e308, unit_id: 'x' })}`,
      '/api/v1/scores?from=9999999999999999',
      '/api/v1/units?to=9999999999999999',
    ]) {
      const res = await app.request(path);
      expect([path, res.status]).toEqual([path, 400]);
    }
  });
});
