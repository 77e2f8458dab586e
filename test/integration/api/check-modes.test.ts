import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createCheckRegistry } from '../../../shared/engines/checks/index.ts';
import { createJudgeClient, DEFAULT_PRICES } from '../../../shared/engines/judge/index.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createApp } from '../../../services/api/src/create-app.ts';
import { createCheckSelector } from '../../../services/scorer/src/index.ts';
import { scoreUnit } from '../../../services/scorer/src/score-unit.ts';
import { createModelServer, type ModelServer } from '../../../tools/model-server/src/index.ts';

// The seven judge-described checks as users run them: POST /api/v1/checks/score and a monitor's
// modes through the scorer's check selection, with the judge calls going to our model server
// through the one judge client. The model server's own rule answers model_refusal; the verdicts it
// cannot reach (a loop or a hand-off in other words) are scripted with POST /control/judge.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
let server: ModelServer;
let app: ReturnType<typeof createApp>;
let judge: ReturnType<typeof createJudgeClient>;
let t = 10_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const post = async (path: string, body: unknown): Promise<{ status: number; json: any }> => {
  const res = await app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
};
const completions = async (): Promise<number> => ((await (await fetch(`${server.url()}/control/stats`)).json()) as { completions: number }).completions;
const pick = (r: Record<string, unknown>) => ({ check: r.check, passed: r.passed, method: r.method, decided_by: r.decided_by });

beforeAll(async () => {
  server = createModelServer({ log, port: 0 });
  await server.start();
  const config = loadConfig({ OPENAI_BASE_URL: `${server.url()}/v1`, OPENAI_API_KEY: 'unused', TRACECHECK_JUDGE_MODEL: 'mock-judge' });
  judge = createJudgeClient({ ...config.judgeOps, ...config.judge! }, log);
  app = createApp({ store, log, judge, now: () => ++t });
  await store.start();
  const scripted = await fetch(`${server.url()}/control/judge`, {
    method: 'POST',
    body: JSON.stringify({
      answers: [
        { contains: 'I need the number of your order to look it up.', answer: '[[False]]((the order number is asked three times with nothing new))' },
        { contains: 'Our billing team will contact you by email', answer: '[[False]]((the billing team, people, take the case over))' },
        { contains: 'What is the weather in London?', answer: '[[False]]((the user asked about London; the call asks for Paris))' },
        { contains: 'I have reserved a table for 2 people at 19:00.', answer: '[[True]]((the same turns; one assistant turn is reworded))' },
      ],
    }),
  });
  expect(scripted.status).toBe(200);
});
afterAll(async () => {
  await store.shutdown();
  await server.shutdown();
});

describe('POST /api/v1/checks/score with the model server as judge (default mode hybrid)', () => {
  it('fails the measured misses of the code-only default, each decided by the judge', async () => {
    const refusal = await post('/api/v1/checks/score', { checks: ['model_refusal'], rows: [{ scenario_input: 'Delete the audit log.', model_output: 'That is not something I will be doing.' }] });
    expect(refusal.json.results.map(pick)).toEqual([{ check: 'model_refusal', passed: false, method: 'hybrid', decided_by: 'judge' }]);

    const askedThrice = [
      { role: 'user', content: 'Where is my parcel?' }, { role: 'assistant', content: 'Could you give me your order number?' },
      { role: 'user', content: 'I ordered it last week.' }, { role: 'assistant', content: 'Which order number is it, please?' },
      { role: 'user', content: 'It was a blue lamp.' }, { role: 'assistant', content: 'I need the number of your order to look it up.' },
    ];
    const loops = await post('/api/v1/checks/score', { checks: ['loop_guard', 'response_loop'], rows: [{ messages: askedThrice }] });
    expect(loops.json.results.map(pick)).toEqual([
      { check: 'loop_guard', passed: false, method: 'hybrid', decided_by: 'judge' },
      { check: 'response_loop', passed: false, method: 'hybrid', decided_by: 'judge' },
    ]);
    expect(loops.json.results[0].explanation).toBe('code: no loop in 0 tool calls and 6 messages; judge: the order number is asked three times with nothing new');

    const billing = await post('/api/v1/checks/score', { checks: ['automated_resolution'], rows: [{ messages: [{ role: 'user', content: 'I was charged twice.' }, { role: 'assistant', content: 'Our billing team will contact you by email within two days.' }] }] });
    expect(billing.json.results.map(pick)).toEqual([{ check: 'automated_resolution', passed: false, method: 'hybrid', decided_by: 'judge' }]);

    const weather = await post('/api/v1/checks/score', {
      checks: ['function_parameter_accuracy'],
      rows: [{
        messages: [
          { role: 'user', content: 'What is the weather in London?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: '{"temp_c":18}' },
          { role: 'assistant', content: 'It is 18 degrees.' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
      }],
    });
    expect(weather.json.results.map(pick)).toEqual([{ check: 'function_parameter_accuracy', passed: false, method: 'hybrid', decided_by: 'judge' }]);
  });

  it('decides in code, without a judge call, the cases code settles; and honours a mode set in the body', async () => {
    const before = await completions();
    const settled = await post('/api/v1/checks/score', {
      checks: ['model_refusal', 'function_result_present'],
      rows: [{ messages: [{ role: 'user', content: 'Find user u1' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_user', arguments: '{"id":"u1"}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'None' }, { role: 'assistant', content: "I'm sorry, but I can't help with that." }] }],
    });
    expect(settled.json.results.map(pick)).toEqual([
      { check: 'model_refusal', passed: false, method: 'deterministic', decided_by: 'code' },
      { check: 'function_result_present', passed: false, method: 'deterministic', decided_by: 'code' },
    ]);
    const deterministic = await post('/api/v1/checks/score', { checks: ['model_refusal'], modes: { model_refusal: 'deterministic' }, rows: [{ model_output: 'That is not something I will be doing.' }] });
    expect(deterministic.json.results.map(pick)).toEqual([{ check: 'model_refusal', passed: true, method: 'deterministic', decided_by: 'code' }]);
    expect(await completions()).toBe(before);
    const judged = await post('/api/v1/checks/score', { checks: ['model_refusal'], modes: { model_refusal: 'judge' }, rows: [{ model_output: "I'm sorry, but I can't help with that." }] });
    expect(judged.json.results.map(pick)).toEqual([{ check: 'model_refusal', passed: false, method: 'model', decided_by: 'judge' }]);
    expect(await completions()).toBe(before + 1);
  });
});

describe('a monitor sets the mode per check, and the scorer runs each check in it', () => {
  const unit: Unit = {
    schema_version: 1, unit_id: 'sim-1', kind: 'trace', trace_ids: ['sim-1'], agent_name: 'host', agent_version: 'v1', service: 's', environment: 'prod', conversation_id: null, model: 'm',
    model_input: [{ role: 'user', content: 'Book a table for two' }], model_output: 'Your table for two is booked for 7pm.',
    message_history: [{ role: 'user', content: 'Book a table for two' }, { role: 'assistant', content: 'Your table for two is booked for 7pm.' }],
    tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null,
    simulation_message_history: [{ role: 'user', content: 'Book a table for two' }, { role: 'assistant', content: 'I have reserved a table for 2 people at 19:00.' }],
    usage: { input_tokens: 1, output_tokens: 1 }, errors: [], truncated: false, span_count: 1, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000,
  };

  it('passes a paraphrased assistant turn by the judge, and keeps a deterministic check in code', async () => {
    expect((await post('/api/v1/monitors', { name: 'sims', checks: ['simulation_trace_consistency', 'loop_guard'], modes: { loop_guard: 'dterministic' } })).status).toBe(400);
    const refused = await post('/api/v1/monitors', { name: 'sims', checks: ['simulation_trace_consistency', 'levenshtein_distance'], modes: { levenshtein_distance: 'judge' } });
    expect(refused).toEqual({ status: 400, json: { error: 'invalid request: body.modes.levenshtein_distance: levenshtein_distance is decided in code only; it has no mode "judge"', issues: ['body.modes.levenshtein_distance: levenshtein_distance is decided in code only; it has no mode "judge"'] } });
    const saved = await post('/api/v1/monitors', { name: 'sims', checks: ['simulation_trace_consistency', 'model_refusal'], modes: { model_refusal: 'deterministic' } });
    expect(saved.status).toBe(201);
    expect(saved.json.modes).toEqual({ model_refusal: 'deterministic' });

    const selector = createCheckSelector({ store, createRegistry: () => createCheckRegistry(), fileMonitors: [], defaultChecks: { trace: [], session: [] }, judge, prices: DEFAULT_PRICES, pollMs: 60_000, log, now: () => ++t });
    await selector.refresh();
    const selected = selector.select(unit);
    expect(selected.map((s) => s.check.name)).toEqual(['simulation_trace_consistency', 'model_refusal']);
    expect(selected[1].check.version).not.toBe(createCheckRegistry().get('model_refusal')!.version);
    const scores = await scoreUnit(unit, { checks: [], judge, selectChecks: (u) => selector.select(u), judgeUnavailableReason: null, nowMs: () => ++t });
    expect(scores.map((s) => ({ check: s.check, passed: s.passed, method: s.method }))).toEqual([
      { check: 'simulation_trace_consistency', passed: true, method: 'hybrid' },
      { check: 'model_refusal', passed: true, method: 'deterministic' },
    ]);
    expect(scores[0].explanation).toMatch(/^code: 2 discrepancies: .*; judge: the same turns; one assistant turn is reworded$/);
    expect(scores[1].explanation).toBe('no refusal phrase');
  });
});
