import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../contracts/schemas/index.ts';
import { assistant, call, ctxWith, inputFrom, result, scriptedJudge, user } from '../test-support.ts';
import { functionCallValidator } from './function-call-validator.ts';
import { functionParameterAccuracy } from './function-parameter-accuracy.ts';

const validator = functionCallValidator.build(functionCallValidator.definition);
const accuracy = functionParameterAccuracy.build({ ...functionParameterAccuracy.definition, kind: 'builtin', implementationVersion: '3', mode: 'deterministic' });
const tools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'get_reservation',
      parameters: { type: 'object', properties: { reservation_id: { type: 'string' }, cabin: { enum: ['economy', 'business'] } }, required: ['reservation_id'], additionalProperties: false },
    },
  },
];

describe('function_call_validator', () => {
  const valid = inputFrom([user('x'), call('c1', 'get_reservation', { reservation_id: 'ABC123' }), result('c1', 'get_reservation', '{}')], { tools });

  it('asks the judge whether the right tools came in the right sequence, with the schema check as an extra finding', async () => {
    const judge = scriptedJudge('[[True]] ((the reservation was looked up as asked))');
    expect(await validator.run(valid, ctxWith({ judge }))).toEqual({
      status: 'ok', value: 1, passed: true, method: 'model', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5,
      explanation: 'judge: the reservation was looked up as asked; schema (not deciding): all 1 calls match their JSON Schemas',
    });
    expect(judge.requests[0].system).toContain('called the right tools, in the right sequence');
    expect(judge.requests[0].user).toContain('\n{"id":"c1","name":"get_reservation","arguments":"{\\"reservation_id\\":\\"ABC123\\"}","result":"{}","error":null}\n');
    expect(await validator.run(valid, ctxWith({ judge: scriptedJudge('[[False]] ((wrong order))') }))).toMatchObject({ passed: false, explanation: 'judge: wrong order; schema (not deciding): all 1 calls match their JSON Schemas' });
  });

  it('keeps the judge verdict, a pass, when the schema finds problems, naming each in the explanation', async () => {
    const bad = { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c4', type: 'function' as const, function: { name: 'get_reservation', arguments: '{oops' } }] };
    const msgs = [user('x'), call('c1', 'delete_everything'), call('c2', 'get_reservation', { cabin: 'first' }), bad];
    const out = await validator.run(inputFrom(msgs, { tools }), ctxWith({ judge: scriptedJudge('[[True]] ((fine))') }));
    expect(out).toMatchObject({ passed: true, method: 'model' });
    expect(out.explanation).toBe(
      'judge: fine; schema (not deciding): 4 schema problems: #1 delete_everything({}): delete_everything is not among the defined tools; #2 get_reservation({"cabin":"first"}): missing required parameter reservation_id; ' +
        '#2 get_reservation({"cabin":"first"}): /cabin must be equal to one of the allowed values; #3 get_reservation({oops): arguments are not valid JSON',
    );
  });

  it('does not run without a judge, and passes a unit where no tool was offered or called', async () => {
    expect(await validator.run(valid, ctxWith())).toEqual({ status: 'not_run', method: 'model', error: 'no judge in this test', explanation: 'schema (not deciding): all 1 calls match their JSON Schemas' });
    expect(await validator.run(inputFrom([user('x'), assistant('hi')]), ctxWith())).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'no tools offered and no tool calls' });
  });

  it('asks the judge about a run with no tool call where a tool was offered', async () => {
    const judge = scriptedJudge('[[False]] ((the user asked for reservation ABC123 and no lookup was made))');
    const none = inputFrom([user('Show me reservation ABC123'), assistant('Your reservation looks fine.')], { tools });
    expect(await validator.run(none, ctxWith({ judge }))).toEqual({
      status: 'ok', value: 0, passed: false, method: 'model', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5,
      explanation: 'judge: the user asked for reservation ABC123 and no lookup was made; schema (not deciding): no tool calls to validate',
    });
    expect(judge.requests[0].system).toContain('No call at all fails when the request needed one of the tools offered');
    expect(judge.requests[0].user).toContain('get_reservation');
    expect(await validator.run(none, ctxWith())).toEqual({ status: 'not_run', method: 'model', error: 'no judge in this test', explanation: 'schema (not deciding): no tool calls to validate' });
  });
});

describe('function_parameter_accuracy (pass/fail, as documented)', () => {
  it('passes when the values passed are the values the dialog stated', async () => {
    const msgs = [user('My reservation is ABC123, I paid $1,200.'), call('c1', 'refund', { reservation_id: 'ABC123', amount: 1200, cabin: 'economy' }), result('c1', 'refund', 'ok'), assistant('done')];
    expect(await accuracy.run(inputFrom(msgs), ctxWith())).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: '1 of 1 tool calls have accurate parameters' });
  });

  it('fails (0, not a fraction: before 0.5) when one value was never stated', async () => {
    const msgs = [user('My reservation is ABC123.'), call('c1', 'get_reservation', { reservation_id: 'ABC123' }), result('c1', 'get_reservation', '{"user":"mia_li_3668"}'), call('c2', 'get_user', { user_id: 'mia_li_3669' }), result('c2', 'get_user', '{}')];
    const out = await accuracy.run(inputFrom(msgs), ctxWith());
    expect(out).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic',
      explanation: '1 of 2 tool calls have accurate parameters; #2 get_user({"user_id":"mia_li_3669"}): user_id=mia_li_3669 was not stated before the call',
    });
  });
});
