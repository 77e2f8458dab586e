import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';
import { createJudgeClient } from '../../../shared/engines/judge/index.ts';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createApp } from '../../../services/api/src/create-app.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';

// `POST /api/v1/checks/{name}/try` and a monitor's min_agreement, on an embedded store, with the
// judge calls going to our model server through the one judge client.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
let server: ModelServer;
let t = 50_000;
let app: ReturnType<typeof createApp>;
// The API's try runs code checks in the sandbox it is handed (the scorer's, in `tracecheck up`).
const sandbox = createCodeSandbox({ timeoutMs: 10_000, memoryMb: 128 });
const keys = { read: '', admin: '', bankAdmin: '' };

const ids = Array.from({ length: 5 }, (_, i) => `booking-${i}`);
const unit = (id: string): Unit => ({
  schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'booker', agent_version: 'v2', service: 's', environment: 'prod', conversation_id: null,
  model: 'm', model_input: [{ role: 'user', content: `Book table ${id}` }], model_output: 'Booked.', message_history: [{ role: 'user', content: `Book table ${id}` }, { role: 'assistant', content: 'Booked.' }],
  tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [],
  truncated: false, span_count: 1, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000, project: 'shop',
});
const failed = (id: string, version: string, i: number): Score => ({
  schema_version: 1, unit_id: id, unit_kind: 'trace', check: 'booked', check_version: version, status: 'ok', value: 0, passed: false, explanation: 'no booking seen',
  method: 'model', error: null, judge_model: 'mock-judge', latency_ms: 1, input_tokens: 1, output_tokens: 1, cost_usd: 0, agent_name: 'booker',
  agent_version: 'v2', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: 3_000 + i, project: 'shop',
});
const oldPrompt = { name: 'booked', prompt_template: 'Did the agent book? Answer [[True]] or [[False]].\n{scenario_result}', check_type: 'PASS_FAIL' };
const fixedPrompt = { name: 'booked', prompt_template: 'Did the agent complete the booking the user asked for? Answer [[True]] or [[False]] and a reason in ((…)).\n\nConversation:\n{message_history}', check_type: 'PASS_FAIL' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const call = async (method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> => {
  const res = await app.request(path, { method, headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: res.status === 204 ? null : await res.json() };
};

beforeAll(async () => {
  server = createModelServer({ log, port: 0 });
  await server.start();
  const config = loadConfig({ OPENAI_BASE_URL: `${server.url()}/v1`, OPENAI_API_KEY: 'unused', TRACECHECK_JUDGE_MODEL: 'mock-judge' });
  const judge = createJudgeClient({ ...config.judgeOps, ...config.judge! }, log);
  app = createApp({ store, log, keyring, judge, codeRunner: sandbox, now: () => ++t });
  await store.start();
  keys.read = (await keyring.create('shop', 'read')).key;
  keys.admin = (await keyring.create('shop', 'admin')).key;
  keys.bankAdmin = (await keyring.create('bank', 'admin')).key;
});
afterAll(async () => {
  await sandbox.close();
  await store.shutdown();
  await server.shutdown();
});

describe('checks try and min_agreement', () => {
  it('old 0/5 against people, the fixed prompt 5/5; a monitor goes live only once the live version reaches min_agreement', async () => {
    const v1 = (await call('POST', '/api/v1/checks', keys.admin, oldPrompt)).json.version as string;
    await store.writeUnits(ids.map(unit));
    await store.writeScores(ids.map((id, i) => failed(id, v1, i)));
    for (const id of ids) expect((await call('POST', '/api/v1/reviews', keys.admin, { unit_id: id, check: 'booked', agrees: false, reviewer: 'ann' })).status).toBe(201);

    const monitor = { name: 'bookings', checks: ['booked'], min_agreement: 0.9, min_samples: 5 };
    const refused = await call('POST', '/api/v1/monitors', keys.admin, monitor);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe(`invalid request: min_agreement not reached: check "booked" version ${v1} agrees with people on 0/5 (0.0%, from its reviews), below min_agreement 0.9`);

    expect((await call('POST', '/api/v1/checks/booked/try', keys.read, fixedPrompt)).status).toBe(403);
    expect((await call('POST', '/api/v1/checks/other/try', keys.admin, fixedPrompt)).status).toBe(400);
    const tried = await call('POST', '/api/v1/checks/booked/try', keys.admin, fixedPrompt);
    expect(tried.status).toBe(200);
    expect(tried.json.current.binary.agreement).toMatchObject({ successes: 0, total: 5 });
    expect(tried.json.candidate.binary.agreement).toMatchObject({ successes: 5, total: 5 });
    expect(tried.json.candidate.binary.confusion).toEqual({ fail_fail: 0, fail_pass: 0, pass_fail: 0, pass_pass: 5 });
    expect(tried.json.new_agrees).toEqual({ successes: 5, total: 5 });
    expect(tried.json.differ.map((d: { unit_id: string; human: boolean; new_passed: boolean }) => [d.unit_id, d.human, d.new_passed])).toEqual(ids.map((id) => [id, true, true]));
    expect(tried.json.not_scored).toEqual([]);

    // Another project's key: no reviews, so nothing to try against.
    const bank = await call('POST', '/api/v1/checks/booked/try', keys.bankAdmin, fixedPrompt);
    expect(bank.json).toMatchObject({ project: 'bank', units: 0, differ: [], new_agrees: { successes: 0, total: 0 } });

    const v2 = (await call('POST', '/api/v1/checks', keys.admin, fixedPrompt)).json.version as string;
    expect(v2).toBe(tried.json.new_version);
    const live = await call('POST', '/api/v1/monitors', keys.admin, monitor);
    expect(live.status).toBe(201);
    expect(live.json).toMatchObject({ min_agreement: 0.9, min_samples: 5 });
    const tooFew = await call('PUT', '/api/v1/monitors/bookings', keys.admin, { ...monitor, min_samples: 6 });
    expect(tooFew.status).toBe(400);
    expect(tooFew.json.error).toContain(`check "booked" version ${v2} has 5 measured reviews, min_samples is 6`);
  });

  it('tries a new version of a code check in the sandbox: the old code 0/5, the fixed code 5/5', async () => {
    const check = (body: string) => ({ name: 'booked_code', code: `export function evaluate(args: { model_output: string }): boolean { ${body} }`, language: 'typescript', output_data_type: 'bool' });
    const v1 = (await call('POST', '/api/v1/checks', keys.admin, check('return args.model_output.includes("booking confirmed");'))).json.version as string;
    await store.writeScores(ids.map((id, i) => ({ ...failed(id, v1, i), check: 'booked_code', method: 'code' as const, judge_model: null })));
    for (const id of ids) expect((await call('POST', '/api/v1/reviews', keys.admin, { unit_id: id, check: 'booked_code', agrees: false, reviewer: 'ann' })).status).toBe(201);
    const tried = await call('POST', '/api/v1/checks/booked_code/try', keys.admin, check('return args.model_output.startsWith("Booked");'));
    expect(tried.status).toBe(200);
    expect(tried.json.not_scored).toEqual([]);
    expect(tried.json.current.binary.agreement).toMatchObject({ successes: 0, total: 5 });
    expect(tried.json.candidate.binary.agreement).toMatchObject({ successes: 5, total: 5 });
    expect(tried.json.new_agrees).toEqual({ successes: 5, total: 5 });
  });
});
