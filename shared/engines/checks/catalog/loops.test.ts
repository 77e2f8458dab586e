import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../contracts/schemas/index.ts';
import { assistant, call, ctxWith, inputFrom, result, user, ok } from '../test-support.ts';
import { loopGuard } from './loop-guard.ts';
import { responseLoop } from './response-loop.ts';

// The code tier's findings (hybrid sends what they do not settle to the judge: judge-modes.test.ts).
const guard = loopGuard.build({ ...loopGuard.definition, kind: 'builtin', implementationVersion: '3', mode: 'deterministic' });
const responses = responseLoop.build({ ...responseLoop.definition, kind: 'builtin', implementationVersion: '4', mode: 'deterministic' });

function callAndResult(i: number, name: string, args: unknown, res: string): ChatMessage[] {
  return [call(`c${i}`, name, args), result(`c${i}`, name, res)];
}

describe('loop_guard', () => {
  it('flags the same failing call retried with the same result', async () => {
    const msgs = [user('book it'), ...[1, 2, 3].flatMap((i) => callAndResult(i, 'book', { flight: 'HAT1' }, 'Error: payment declined'))];
    const out = await guard.run(inputFrom(msgs), ctxWith());
    expect(out).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic',
      explanation: 'loop: book({"flight":"HAT1"}) returned the same result 3 times (calls #1, #2, #3)',
    });
  });

  it('flags a cycle of two calls going round with the same results', async () => {
    const msgs = [user('x'), ...[0, 1, 2].flatMap((lap) => [...callAndResult(lap * 2, 'search', { q: 'a' }, 'r1'), ...callAndResult(lap * 2 + 1, 'open', { id: 1 }, 'r2')])];
    const out = await guard.run(inputFrom(msgs), ctxWith());
    expect(ok(out).passed).toBe(false);
    expect(out.explanation).toContain('the cycle search({"q":"a"}) → open({"id":1}) repeats 3 laps from call #1 with the same results');
  });

  it('does not flag polling that brings new results each time', async () => {
    const msgs = [user('wait for it'), ...[1, 2, 3, 4].flatMap((i) => callAndResult(i, 'status', { job: 9 }, `{"progress": ${i * 25}}`))];
    expect(await guard.run(inputFrom(msgs), ctxWith())).toMatchObject({ passed: true, explanation: 'no loop in 4 tool calls and 9 messages' });
  });

  it('does not flag the same call made twice', async () => {
    const msgs = [user('x'), ...[1, 2].flatMap((i) => callAndResult(i, 'get_user', { id: 'u' }, '{"name":"Ann"}'))];
    expect(ok(await guard.run(inputFrom(msgs), ctxWith())).passed).toBe(true);
  });

  it('flags repeated assistant turns with nothing new between', async () => {
    const msgs = [user('hi'), assistant('Could you share your user ID?'), assistant('Could you share your user id.'), assistant('could you share your user ID?')];
    const out = await guard.run(inputFrom(msgs), ctxWith());
    expect(out).toMatchObject({ passed: false, explanation: 'loop: messages 1, 2, 3 repeat the same assistant turn ("could you share your user id")' });
  });
});

describe('response_loop', () => {
  it('flags a response repeated while the user only repeats themselves', async () => {
    const msgs = [user('ok'), assistant('How can I help?'), user('ok'), assistant('How can I help?'), user('ok'), assistant('How can I help?'), user('ok'), assistant('How can I help?')];
    const out = await responses.run(inputFrom(msgs), ctxWith());
    expect(out).toMatchObject({ passed: false, method: 'deterministic', explanation: 'response loop: messages 1, 3, 5, 7 repeat "how can i help"' });
  });

  it('does not flag the same sentence after new information each time', async () => {
    const msgs = [
      user('change my seat'), assistant('Is there anything else I can help with?'),
      user('add a bag'), assistant('Is there anything else I can help with?'),
      user('upgrade to business'), assistant('Is there anything else I can help with?'),
    ];
    expect(await responses.run(inputFrom(msgs), ctxWith())).toMatchObject({ passed: true });
  });

  it('does not flag different responses that share words', async () => {
    const msgs = [user('x'), assistant('Your flight HAT001 is booked.'), assistant('Your flight HAT002 is cancelled, refund issued.'), assistant('Your seat 12A is confirmed on HAT003.')];
    expect(ok(await responses.run(inputFrom(msgs), ctxWith())).passed).toBe(true);
  });

  it('counts speakers apart in a group chat', async () => {
    const a = (name: string, content: string): ChatMessage => ({ role: 'assistant', name, content });
    const msgs = [user('task'), a('Planner', 'TERMINATE'), a('Coder', 'TERMINATE'), a('Planner', 'TERMINATE')];
    expect(ok(await responses.run(inputFrom(msgs), ctxWith())).passed).toBe(true);
  });
});
