import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createApp } from './create-app.ts';

// Every route that names a check refuses a misspelt one with the closest names, through one module.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
let t = 10_000;
const app = createApp({ store, log, now: () => ++t });

const unit: Unit = {
  schema_version: 1, unit_id: 'u1', kind: 'trace', trace_ids: ['u1'], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod',
  conversation_id: null, model: 'm', model_input: [], model_output: 'hi', message_history: [], tool_calls: [], tools: [], scenario_input: null,
  scenario_result: null, simulation_id: null, simulation_message_history: null, usage: {}, errors: [], truncated: false, span_count: 1,
  start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000, project: 'default',
};
// A check no registry holds any more, with scores: read routes still take its name.
const retired: Score = {
  schema_version: 1, unit_id: 'u1', unit_kind: 'trace', check: 'retired_check', check_version: 'h1', status: 'ok', value: 1, passed: true, explanation: '',
  method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'a',
  agent_version: 'v1', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: 3_000, project: 'default',
};

beforeAll(async () => {
  await store.start();
  await store.writeUnits([unit]);
  await store.writeScores([retired]);
});
afterAll(() => store.shutdown());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await app.request(path, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

const refused = (at: string) => ({
  status: 400,
  body: { error: `invalid request: ${at}: unknown check "task_completd"; did you mean "task_completed"?`, issues: [`${at}: unknown check "task_completd"; did you mean "task_completed"?`] },
});

describe('check names at the API boundary', () => {
  it('alert rules: refused on create and on replace, with the closest name', async () => {
    const rule = { name: 'r', kind: 'threshold', window: '15m', threshold: 0.9 };
    expect(await call('POST', '/api/v1/alert-rules', { ...rule, check: 'task_completd' })).toEqual(refused('body.check'));
    const created = await call('POST', '/api/v1/alert-rules', { ...rule, check: 'task_completed' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect(await call('PUT', `/api/v1/alert-rules/${id}`, { ...rule, check: 'task_completd' })).toEqual(refused('body.check'));
    expect((await call('POST', '/api/v1/alert-rules', { ...rule, check: 'retired_check' })).status).toBe(201);
  });

  it('monitors: every unknown name, by its place in the list; a name with scores only is still refused (it cannot run)', async () => {
    expect(await call('POST', '/api/v1/monitors', { name: 'm', checks: ['loop_guard', 'task_completd'] })).toEqual(refused('body.checks.1'));
    expect(await call('POST', '/api/v1/monitors', { name: 'm', checks: ['retired_check'] })).toEqual({
      status: 400,
      body: { error: 'invalid request: body.checks.0: unknown check "retired_check" (GET /api/v1/checks lists the checks)', issues: ['body.checks.0: unknown check "retired_check" (GET /api/v1/checks lists the checks)'] },
    });
  });

  it('review queues: a misspelt check, and a name the project already has', async () => {
    expect(await call('POST', '/api/v1/review-queues', { name: 'q', filter: { check: 'task_completd' } })).toEqual(refused('body.filter.check'));
    const first = await call('POST', '/api/v1/review-queues', { name: 'q', filter: { check: 'task_completed' } });
    expect(first.status).toBe(201);
    expect(await call('POST', '/api/v1/review-queues', { name: 'q', filter: { check: 'loop_guard' } })).toEqual({
      status: 409,
      body: { error: `a review queue named "q" exists (id ${(first.body as { id: string }).id}); choose another name` },
    });
  });

  it('compare and series: a misspelt check; a check with scores is taken', async () => {
    expect(await call('GET', '/api/v1/compare?check=task_completd&a.agent_version=v1&b.agent_version=v2')).toEqual(refused('query.check'));
    expect(await call('GET', '/api/v1/series?check=task_completd')).toEqual(refused('query.check'));
    expect((await call('GET', '/api/v1/compare?check=retired_check&a.agent_version=v1&b.agent_version=v2')).status).toBe(200);
  });

  it('datasets: a misspelt check, and a snapshot that would be empty, each say why', async () => {
    expect(await call('POST', '/api/v1/datasets', { name: 'd', query: { check: 'task_completd' } })).toEqual(refused('body.query.check'));
    expect(await call('POST', '/api/v1/datasets', { name: 'd', query: { check: 'task_completed' } })).toEqual({
      status: 400,
      body: { error: 'the dataset would be empty: no scored unit matches the query {"check":"task_completed","limit":50}' },
    });
    expect(await call('POST', '/api/v1/datasets', { name: 'd', unit_ids: ['nope', 'gone'] })).toEqual({
      status: 400,
      body: { error: 'the dataset would be empty: none of the 2 unit ids is a unit of project default' },
    });
    const queue = (await call('POST', '/api/v1/review-queues', { name: 'wrong', filter: { check: 'retired_check' } })).body as { id: string };
    expect(await call('POST', '/api/v1/datasets', { name: 'd', queue_id: queue.id })).toEqual({
      status: 400,
      body: { error: `the dataset would be empty: no reviewer of queue ${queue.id} has marked a unit wrong (disagreed with the check) yet` },
    });
    expect((await call('POST', '/api/v1/datasets', { name: 'd', unit_ids: ['u1'] })).status).toBe(201);
  });
});
