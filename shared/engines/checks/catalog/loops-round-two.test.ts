import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../contracts/schemas/index.ts';
import { call, ctxWith, inputFrom, ok, result } from '../test-support.ts';
import { loopGuard } from './loop-guard.ts';
import { responseLoop } from './response-loop.ts';

// The code tier's findings (hybrid sends what they do not settle to the judge: judge-modes.test.ts).
const guard = loopGuard.build({ ...loopGuard.definition, kind: 'builtin', implementationVersion: '3', mode: 'deterministic' });
const responses = responseLoop.build({ ...responseLoop.definition, kind: 'builtin', implementationVersion: '4', mode: 'deterministic' });
const u = (content: string): ChatMessage => ({ role: 'user', content });
const a = (content: string, name?: string): ChatMessage => (name ? { role: 'assistant', content, name } : { role: 'assistant', content });

describe('multi-agent cycles', () => {
  const cycle = [
    u('Please refund order 42.'),
    a('Refund for order 42 needs billing; Billing, please take over the refund for order 42.', 'Support'),
    a('Refunds of shipped orders belong to support. Support, please handle the refund for order 42 yourself.', 'Billing'),
    a('Billing, please take over the refund for order 42; it needs billing.', 'Support'),
    a('Support, refunds of shipped orders are yours: handle the refund for order 42 yourself.', 'Billing'),
    a('Order 42 refund needs billing. Billing, please take over the refund.', 'Support'),
    a('Shipped orders refunds belong to support; Support, please handle the order 42 refund yourself.', 'Billing'),
  ];

  it('flags two agents handing the same request back and forth, naming the turns', async () => {
    const out = await guard.run(inputFrom(cycle), ctxWith());
    expect(out).toMatchObject({ passed: false, explanation: 'loop: agents Support and Billing hand the same request back and forth in messages 1, 2, 3, 4, 5, 6 without progress' });
  });

  it('response_loop fails it too: repeated content with no new information or action', async () => {
    const out = await responses.run(inputFrom(cycle), ctxWith());
    expect(out).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic',
      explanation: 'response loop: agents Support and Billing hand the same content back and forth in messages 1, 2, 3, 4, 5, 6 with no new information or action',
    });
  });

  it('does not flag agents that make progress between hand-offs', async () => {
    const progress = [
      u('Please refund order 42.'),
      a('Billing, please take over the refund for order 42.', 'Support'),
      a('I need the payment id for order 42 first.', 'Billing'),
      a('The payment id for order 42 is pay_77.', 'Support'),
      a('Refund of 30 EUR to pay_77 issued; confirmation R-1.', 'Billing'),
      a('Thanks, I told the customer about R-1.', 'Support'),
    ];
    expect(ok(await guard.run(inputFrom(progress), ctxWith())).passed).toBe(true);
    expect(ok(await responses.run(inputFrom(progress), ctxWith())).passed).toBe(true);
  });
});

describe('paraphrased repetition', () => {
  const offer = [
    u('My flight got cancelled.'),
    a('I can rebook you on the 3 pm flight to Boston. Would you like me to book it?'),
    u('Yes please.'),
    a('Shall I go ahead and book the 3pm Boston flight for you?'),
  ];

  it('flags an offer repeated in other words after the user said yes, with the turns', async () => {
    const expected = 'message 3 repeats the offer of message 1 in other words after the user agreed in message 2 ("Shall I go ahead and book the 3pm Boston flight f…")';
    expect(await responses.run(inputFrom(offer), ctxWith())).toMatchObject({ passed: false, explanation: `response loop: ${expected}` });
    expect(await guard.run(inputFrom(offer), ctxWith())).toMatchObject({ passed: false, explanation: `loop: ${expected}` });
  });

  it('does not flag acting on the yes', async () => {
    const acted = [...offer.slice(0, 3), call('c1', 'book', { flight: 'BOS15' }), result('c1', 'book', '{"ok":true}'), a('Done: you are booked on the 3 pm flight to Boston.')];
    expect(ok(await responses.run(inputFrom(acted), ctxWith())).passed).toBe(true);
  });

  it('does not flag a user who changes the question', async () => {
    const changed = [...offer.slice(0, 2), u('No, what about the train instead?'), a('The 3 pm train to Boston has seats; shall I book the train?')];
    expect(ok(await responses.run(inputFrom(changed), ctxWith())).passed).toBe(true);
  });

  it('does not flag pagination or one retry after a timeout', async () => {
    const pages = [u('List all orders.'), ...[1, 2, 3].flatMap((p) => [call(`p${p}`, 'list_orders', { page: p }), result(`p${p}`, 'list_orders', `{"page":${p},"orders":[${p}]}`)]), a('Here are your orders.')];
    const retry = [u('Status of job 9?'), call('r1', 'status', { job: 9 }), result('r1', 'status', 'Error: timeout'), call('r2', 'status', { job: 9 }), result('r2', 'status', '{"state":"done"}'), a('Job 9 is done.')];
    expect(ok(await guard.run(inputFrom(pages), ctxWith())).passed).toBe(true);
    expect(ok(await guard.run(inputFrom(retry), ctxWith())).passed).toBe(true);
  });
});
