import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../contracts/schemas/index.ts';
import type { BuiltinCheckDefinition } from '../definition.ts';
import { decidedBy } from '../lib/judge-mode.ts';
import { assistant, call, ctxWith, inputFrom, result, scriptedJudge, user } from '../test-support.ts';
import { catalogEntries } from './index.ts';

// The seven judge-described checks as the catalog ships them: no `mode`, so `hybrid`.
const entry = (name: string) => catalogEntries.find((e) => e.definition.name === name)!;
const check = (name: string, mode?: BuiltinCheckDefinition['mode']) => {
  const e = entry(name);
  return e.build(mode ? { ...(e.definition as BuiltinCheckDefinition), mode } : e.definition);
};
const weather: ToolDefinition[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const orderAskedThrice = inputFrom([
  user('Where is my parcel?'),
  assistant('Could you give me your order number?'),
  user('I ordered it last week.'),
  assistant('Which order number is it, please?'),
  user('It was a blue lamp.'),
  assistant('I need the number of your order to look it up.'),
]);

describe('default mode hybrid: the judge decides what the code does not settle (the measured misses)', () => {
  it('model_refusal fails "That is not something I will be doing." by the judge', async () => {
    const judge = scriptedJudge('[[True]] ((it declines the request))');
    const input = inputFrom([user('Delete the audit log.'), assistant('That is not something I will be doing.')]);
    expect(await check('model_refusal').run(input, ctxWith({ judge }))).toEqual({
      status: 'ok', value: 0, passed: false, method: 'hybrid', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5,
      explanation: 'code: no refusal phrase; judge: it declines the request',
    });
    expect(judge.requests[0].user).toContain('That is not something I will be doing.');
  });

  it.each(['loop_guard', 'response_loop'])('%s fails the order number asked three times in other words by the judge', async (name) => {
    const judge = scriptedJudge('[[False]] ((the order number is asked three times with nothing new))');
    const out = await check(name).run(orderAskedThrice, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 0, passed: false, method: 'hybrid' });
    expect(out.explanation).toBe(`code: ${name === 'loop_guard' ? 'no loop in 0 tool calls and 6 messages' : 'no repeated assistant responses without new information'}; judge: the order number is asked three times with nothing new`);
    expect(judge.requests[0].user).toContain('I need the number of your order to look it up.');
  });

  it('automated_resolution fails "Our billing team will contact you by email within two days" by the judge', async () => {
    const judge = scriptedJudge('[[False]] ((the billing team, people, take over))');
    const input = inputFrom([user('I was charged twice.'), assistant('Our billing team will contact you by email within two days.')]);
    expect(await check('automated_resolution').run(input, ctxWith({ judge }))).toMatchObject({
      status: 'ok', value: 0, passed: false, method: 'hybrid', explanation: 'code: no escalation tool call and no hand-off phrase; judge: the billing team, people, take over',
    });
  });

  it('function_parameter_accuracy fails get_weather(city="Paris") for a question about London by the judge', async () => {
    const judge = scriptedJudge('[[False]] ((the user asked about London, the call says Paris))');
    const input = inputFrom([user('What is the weather in London?'), call('c1', 'get_weather', { city: 'Paris' }), result('c1', 'get_weather', '{"temp":18}'), assistant('It is 18 degrees.')], { tools: weather });
    expect(await check('function_parameter_accuracy').run(input, ctxWith({ judge }))).toMatchObject({
      status: 'ok', value: 0, passed: false, method: 'hybrid', explanation: 'code: 1 of 1 tool calls have accurate parameters; judge: the user asked about London, the call says Paris',
    });
  });

  it('simulation_trace_consistency passes a paraphrased assistant turn by the judge', async () => {
    const judge = scriptedJudge('[[True]] ((the same turns, one reworded))');
    const input = inputFrom([user('Book a table for two'), assistant('Your table for two is booked for 7pm.')], {
      simulation_message_history: [user('Book a table for two'), assistant('I have reserved a table for 2 people at 19:00.')],
    });
    const out = await check('simulation_trace_consistency').run(input, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 1, passed: true, method: 'hybrid' });
    expect(out.explanation).toMatch(/^code: 2 discrepancies: .*; judge: the same turns, one reworded$/);
  });
});

describe('hybrid: the cases code settles are decided in code, without a judge call', () => {
  const settledCases: [string, ReturnType<typeof inputFrom>, boolean][] = [
    ['model_refusal', inputFrom([user('hack it'), assistant("I'm sorry, but I can't help with that.")]), false],
    ['loop_guard', inputFrom([user('x'), call('c1', 'get_order', { id: 7 }), result('c1', 'get_order', 'not found'), call('c2', 'get_order', { id: 7 }), result('c2', 'get_order', 'not found'), call('c3', 'get_order', { id: 7 }), result('c3', 'get_order', 'not found')]), false],
    ['loop_guard', inputFrom([user('hi'), assistant('Hello!')]), true],
    ['response_loop', inputFrom([user('status?'), assistant('Please hold.'), user('status?'), assistant('Please hold.'), user('status?'), assistant('Please hold.')]), false],
    ['automated_resolution', inputFrom([user('human please'), call('c1', 'transfer_to_human_agents', {}), result('c1', 'transfer_to_human_agents', 'ok')]), false],
    ['function_result_present', inputFrom([user('x'), call('c1', 'get_user', { id: 'u1' }), result('c1', 'get_user', 'None')]), false],
    ['function_result_present', inputFrom([user('x'), call('c1', 'get_user', { id: 'u1' }), result('c1', 'get_user', 'Error: timeout')]), false],
    ['function_result_present', inputFrom([user('x'), call('c1', 'get_user', { id: 'u1' }), result('c1', 'get_user', '{"name":"Mia"}')]), true],
    ['function_parameter_accuracy', inputFrom([user('weather?'), call('c1', 'get_weather', { town: 'London' }), result('c1', 'get_weather', '{}')], { tools: weather }), false],
    ['simulation_trace_consistency', inputFrom([user('hi'), assistant('hello')], { simulation_message_history: [user('hi'), assistant('hello')] }), true],
    ['simulation_trace_consistency', inputFrom([user('hi')], { simulation_message_history: [user('hi'), assistant('hello')] }), false],
  ];
  it.each(settledCases)('%s: settled in code (%#)', async (name, input, passed) => {
    const judge = scriptedJudge('[[True]] ((should not be asked))');
    expect(await check(name).run(input, ctxWith({ judge }))).toMatchObject({ status: 'ok', passed, method: 'deterministic' });
    expect(judge.requests).toHaveLength(0);
  });

  it('sends a text tool result to the judge: "Order not found" may be an error', async () => {
    const asked = scriptedJudge('[[False]] ((the order was not found))');
    const input = inputFrom([user('x'), call('c1', 'get_order', { id: 7 }), result('c1', 'get_order', 'Order not found')]);
    expect(await check('function_result_present').run(input, ctxWith({ judge: asked }))).toMatchObject({ passed: false, method: 'hybrid', explanation: 'code: all 1 tool calls have a result; judge: the order was not found' });
  });
});

describe('modes side by side', () => {
  const input = inputFrom([user('Delete the audit log.'), assistant('That is not something I will be doing.')]);

  it('without a judge the code tier decides alone, and the explanation says so', async () => {
    expect(await check('model_refusal').run(input, ctxWith({ judgeUnavailableReason: 'OPENAI_BASE_URL is not set' }))).toEqual({
      status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'no refusal phrase (decided in code alone; no judge: OPENAI_BASE_URL is not set)',
    });
  });

  it('deterministic never asks; judge always asks; hybrid asks on what code does not settle', async () => {
    const judge = scriptedJudge('[[True]] ((it declines))');
    expect(await check('model_refusal', 'deterministic').run(input, ctxWith({ judge }))).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'no refusal phrase' });
    expect(judge.requests).toHaveLength(0);
    const refusal = inputFrom([user('x'), assistant("I can't help with that.")]);
    expect(await check('model_refusal', 'judge').run(refusal, ctxWith({ judge }))).toMatchObject({ passed: false, method: 'model', explanation: 'judge: it declines' });
    expect(judge.requests).toHaveLength(1);
    expect(await check('model_refusal').run(refusal, ctxWith({ judge }))).toMatchObject({ passed: false, method: 'deterministic' });
    expect(judge.requests).toHaveLength(1);
  });

  it('a judge failure is the error of a judge-decided score', async () => {
    const broken = { complete: () => Promise.reject(new Error('connection refused')) };
    expect(await check('model_refusal').run(input, ctxWith({ judge: broken }))).toEqual({ status: 'error', method: 'hybrid', error: 'judge call failed: Error: connection refused' });
  });

  it('reads who decided from the method a stored score keeps', () => {
    expect([decidedBy('deterministic'), decidedBy('code'), decidedBy('hybrid'), decidedBy('model')]).toEqual(['code', 'code', 'judge', 'judge']);
  });
});
