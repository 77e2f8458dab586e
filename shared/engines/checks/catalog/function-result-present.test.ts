import { describe, expect, it } from 'vitest';
import { assistant, call, ctxWith, inputFrom, result, user } from '../test-support.ts';
import { functionResultPresent } from './function-result-present.ts';

const check = functionResultPresent.build(functionResultPresent.definition);
const run = (msgs: Parameters<typeof inputFrom>[0], o = {}) => check.run(inputFrom(msgs, o), ctxWith());

describe('function_result_present', () => {
  it('passes when every call has a result', async () => {
    const out = await run([user('find order'), call('c1', 'get_order', { id: 7 }), result('c1', 'get_order', '{"id":7}'), assistant('found it')]);
    expect(out).toEqual({ status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'all 1 tool calls have a result' });
  });

  it('passes with no tool calls', async () => {
    const out = await run([user('hi'), assistant('hello')]);
    expect(out).toMatchObject({ status: 'ok', passed: true, explanation: 'no tool calls' });
  });

  it('fails when a call has no result message, naming the call', async () => {
    const out = await run([user('x'), call('c1', 'get_user', { id: 'u1' }), assistant('done')]);
    expect(out).toMatchObject({ status: 'ok', value: 0, passed: false });
    expect(out.explanation).toBe('1 of 1 tool calls lack a usable result: #1 get_user({"id":"u1"}): no result');
  });

  it.each([
    ['Error: user not found', 'error result: Error: user not found'],
    ['error - timeout', 'error result: error - timeout'],
    ['{"error": "rate limited"}', 'error result: rate limited'],
    ['{"status": "error", "message": "boom"}', 'error result: boom'],
    ['Traceback (most recent call last): ...', 'error result: Traceback (most recent call last): ...'],
    ['', 'empty result'],
    ['null', 'empty result (null)'],
    // As defined: not null, none or an error (before: a Python None passed).
    ['None', 'empty result (None)'],
    ['none', 'empty result (none)'],
    ['   ', 'empty result'],
  ])('fails on the result %j', async (content, problem) => {
    const out = await run([call('c1', 'f'), result('c1', 'f', content)]);
    expect(out).toMatchObject({ status: 'ok', passed: false });
    expect(out.explanation).toBe(`1 of 1 tool calls lack a usable result: #1 f({}): ${problem}`);
  });

  it('fails on a null content and on an error recorded on the call (tool span status error)', async () => {
    const nullOut = await run([call('c1', 'f'), result('c1', 'f', null)]);
    expect(nullOut.explanation).toContain('#1 f({}): no result');
    const spanErr = await check.run(
      inputFrom([user('x')], { tool_calls: [{ id: 'c1', name: 'pay', arguments: '{}', result: 'partial', error: 'span status ERROR: card declined' }] }),
      ctxWith(),
    );
    expect(spanErr).toMatchObject({ passed: false, explanation: '1 of 1 tool calls lack a usable result: #1 pay({}): error: span status ERROR: card declined' });
  });

  it('accepts "nothing found" results and the empty result of a think tool', async () => {
    const out = await run([call('c1', 'search', { q: 'x' }), result('c1', 'search', '[]'), call('c2', 'get', {}), result('c2', 'get', '{}'), call('c3', 'think', { thought: 'plan' }), result('c3', 'think', '')]);
    expect(out).toMatchObject({ passed: true, explanation: 'all 3 tool calls have a result' });
  });

  it('does not mistake results that mention errors for errors', async () => {
    const out = await run([call('c1', 'f'), result('c1', 'f', '{"error_count": 0, "errors": [], "status": "ok"}'), call('c2', 'g'), result('c2', 'g', 'No error found')]);
    expect(out).toMatchObject({ passed: true });
  });
});
