import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../schemas/index.ts';
import { assistant, call, ctxWith, inputFrom, result, user } from '../test-support.ts';
import { functionCallValidator } from './function-call-validator.ts';
import { functionParameterAccuracy } from './function-parameter-accuracy.ts';

const validator = functionCallValidator.build(functionCallValidator.definition);
const accuracy = functionParameterAccuracy.build(functionParameterAccuracy.definition);
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
  it('passes valid calls', async () => {
    const out = await validator.run(inputFrom([user('x'), call('c1', 'get_reservation', { reservation_id: 'ABC123' }), result('c1', 'get_reservation', '{}')], { tools }), ctxWith());
    expect(out).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'all 1 tool calls match their tool definitions' });
  });

  it('reports unknown tools, missing required parameters, bad enums and bad JSON', async () => {
    const bad = { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c4', type: 'function' as const, function: { name: 'get_reservation', arguments: '{oops' } }] };
    const msgs = [user('x'), call('c1', 'delete_everything'), call('c2', 'get_reservation', { cabin: 'first' }), bad];
    const out = await validator.run(inputFrom(msgs, { tools }), ctxWith());
    expect(out).toMatchObject({ passed: false });
    expect(out.explanation).toBe(
      '4 problems: #1 delete_everything({}): delete_everything is not among the defined tools; #2 get_reservation({"cabin":"first"}): missing required parameter reservation_id; ' +
        '#2 get_reservation({"cabin":"first"}): /cabin must be equal to one of the allowed values; #3 get_reservation({oops): arguments are not valid JSON',
    );
  });

  it('does not run without tool definitions', async () => {
    expect((await validator.run(inputFrom([user('x')]), ctxWith())).status).toBe('not_run');
  });
});

describe('function_parameter_accuracy', () => {
  it('scores 1 when the values passed are the values the dialog stated', async () => {
    const msgs = [user('My reservation is ABC123, I paid $1,200.'), call('c1', 'refund', { reservation_id: 'ABC123', amount: 1200, cabin: 'economy' }), result('c1', 'refund', 'ok'), assistant('done')];
    expect(await accuracy.run(inputFrom(msgs), ctxWith())).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: '1 of 1 tool calls have accurate parameters' });
  });

  it('flags a value the dialog never stated', async () => {
    const msgs = [user('My reservation is ABC123.'), call('c1', 'get_reservation', { reservation_id: 'ABC123' }), result('c1', 'get_reservation', '{"user":"mia_li_3668"}'), call('c2', 'get_user', { user_id: 'mia_li_3669' }), result('c2', 'get_user', '{}')];
    const out = await accuracy.run(inputFrom(msgs), ctxWith());
    expect(out).toEqual({
      status: 'ok', value: 0.5, passed: false, method: 'deterministic',
      explanation: '1 of 2 tool calls have accurate parameters; #2 get_user({"user_id":"mia_li_3669"}): user_id=mia_li_3669 was not stated before the call',
    });
  });
});
