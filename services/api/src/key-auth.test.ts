import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

// Projects are walls: with keys, a request sees only its key's project; without a key, nothing.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const app = createApp({ store, log, keyring });

const unit = (id: string, project: string): Unit => ({
  schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod',
  conversation_id: null, model: 'm', model_input: [], model_output: 'hi', message_history: [], tool_calls: [], tools: [], scenario_input: null,
  scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [],
  truncated: false, span_count: 1, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000, project,
});
const score = (id: string, project: string): Score => ({
  schema_version: 1, unit_id: id, unit_kind: 'trace', check: 'loop_guard', check_version: 'h', status: 'ok', value: 0, passed: false, explanation: '',
  method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'a',
  agent_version: 'v1', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: 3_000, project,
});

let shopRead = '';
let bankRead = '';
let shopIngest = '';
let shopAdmin = '';
beforeAll(async () => {
  await store.start();
  await store.writeUnits([unit('shop-unit', 'shop'), unit('bank-unit', 'bank')]);
  await store.writeScores([score('shop-unit', 'shop'), score('bank-unit', 'bank')]);
  // Before any key exists the API is open as the default project, which has no data here.
  expect(((await (await app.request('/api/v1/scores')).json()) as { count: number }).count).toBe(0);
  shopRead = (await keyring.create('shop', 'read')).key;
  bankRead = (await keyring.create('bank', 'read')).key;
  shopIngest = (await keyring.create('shop', 'ingest')).key;
  shopAdmin = (await keyring.create('shop', 'admin')).key;
});
afterAll(() => store.shutdown());

const get = (path: string, key?: string) => app.request(path, key ? { headers: { Authorization: `Bearer ${key}` } } : {});

describe('API keys and projects', () => {
  it('answers 401 without a key once keys exist, and 403 to a key of the wrong role', async () => {
    const none = await get('/api/v1/scores');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await get('/api/v1/scores', 'tc_read_not-a-real-key')).status).toBe(401);
    expect((await get('/api/v1/scores', shopIngest)).status).toBe(403);
    // Health and the document stay open: probes and clients need them without a key.
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/openapi.json')).status).toBe(200);
  });

  it("shows a key only its own project's units and scores; the other project's unit is 404", async () => {
    const scores = (await (await get('/api/v1/scores', shopRead)).json()) as { scores: Array<{ unit_id: string; project: string }> };
    expect(scores.scores.map((s) => [s.unit_id, s.project])).toEqual([['shop-unit', 'shop']]);
    expect((await get('/api/v1/units/shop-unit', shopRead)).status).toBe(200);
    expect((await get('/api/v1/units/bank-unit', shopRead)).status).toBe(404);
    expect((await get('/api/v1/units/bank-unit', bankRead)).status).toBe(200);
    const units = (await (await get('/api/v1/units', bankRead)).json()) as { units: Array<{ unit_id: string }> };
    expect(units.units.map((u) => u.unit_id)).toEqual(['bank-unit']);
    const summary = (await (await get('/api/v1/checks/summary?from=0', bankRead)).json()) as { checks: Array<{ check: string; n: number }> };
    expect(summary.checks.map((c) => [c.check, c.n])).toEqual([['loop_guard', 1]]);
  });

  it("takes the dashboard's session cookie for reads, and for changes only as same-origin JSON; never a raw key as the cookie", async () => {
    const signIn = async (key: string): Promise<Record<string, string>> => {
      const res = await app.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `key=${encodeURIComponent(key)}` });
      const token = /tracecheck_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1];
      return { Cookie: `tracecheck_session=${token}`, Host: 'dash.example' };
    };
    const shopAdminCookie = await signIn(shopAdmin);
    const read = await app.request('/api/v1/units', { headers: await signIn(shopRead) });
    expect(((await read.json()) as { units: Array<{ unit_id: string }> }).units.map((u) => u.unit_id)).toEqual(['shop-unit']);
    // The cookie of earlier versions held the key itself: no longer taken.
    expect((await app.request('/api/v1/units', { headers: { Cookie: `tracecheck_key=${shopRead}` } })).status).toBe(401);
    expect((await app.request('/api/v1/units', { headers: { Cookie: `tracecheck_session=${shopRead}` } })).status).toBe(401);
    const rule = JSON.stringify({ kind: 'threshold', name: 'loops', check: 'loop_guard', window: '1h', threshold: 0.9 });
    const post = (headers: Record<string, string>, body = rule) => app.request('/api/v1/alert-rules', { method: 'POST', headers: { ...shopAdminCookie, ...headers }, body });
    // A cross-site form can send neither JSON nor our origin.
    expect((await post({ 'content-type': 'application/x-www-form-urlencoded' }, 'kind=threshold')).status).toBe(403);
    expect((await post({ 'content-type': 'text/plain' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post({ 'content-type': 'application/json', Origin: 'http://dash.example', 'Sec-Fetch-Site': 'same-origin' })).status).toBe(201);
    // A read key's session cannot change anything; a bearer key needs no origin.
    expect((await post({ 'content-type': 'application/json', ...(await signIn(shopRead)) })).status).toBe(403);
    expect((await app.request('/api/v1/alert-rules', { method: 'POST', headers: { Authorization: `Bearer ${shopAdmin}`, 'content-type': 'application/json' }, body: rule })).status).toBe(201);
  });
});
