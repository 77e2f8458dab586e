import { describe, expect, it } from 'vitest';
import { assistant, call, ctxWith, inputFrom, result, scriptedJudge, user } from '../test-support.ts';
import { automatedResolution } from './automated-resolution.ts';
import { modelRefusal } from './model-refusal.ts';

// The code tier alone, and the default (hybrid): the code settles what it can, the judge the rest.
const refusal = modelRefusal.build({ ...modelRefusal.definition, kind: 'builtin', implementationVersion: '2', mode: 'deterministic' });
const hybridRefusal = modelRefusal.build(modelRefusal.definition);
const resolution = automatedResolution.build({ ...automatedResolution.definition, kind: 'builtin', implementationVersion: '2', mode: 'deterministic' });
const hybridResolution = automatedResolution.build(automatedResolution.definition);

describe('model_refusal', () => {
  it('fails on a refusal phrase', async () => {
    expect(await refusal.run(inputFrom([user('hack it'), assistant("I'm sorry, but I can't help with that request.")]), ctxWith())).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'refusal phrase "I\'m sorry, but I can\'t help"',
    });
  });

  it('passes a plain answer', async () => {
    expect(await refusal.run(inputFrom([user('weather?'), assistant('It is sunny in Paris.')]), ctxWith())).toMatchObject({ passed: true, explanation: 'no refusal phrase' });
  });

  it('asks the judge about every output without a refusal phrase when hybrid (the default)', async () => {
    const input = inputFrom([user('refund?'), assistant('Unfortunately the fare is non-refundable, but I have issued a travel credit.')]);
    expect(await refusal.run(input, ctxWith())).toMatchObject({ passed: true, method: 'deterministic' });
    const out = await hybridRefusal.run(input, ctxWith({ judge: scriptedJudge('[[False]] ((it helps with a credit))') }));
    expect(out).toMatchObject({ status: 'ok', value: 1, passed: true, method: 'hybrid', explanation: 'code: only a weak refusal signal "Unfortunately"; judge: it helps with a credit' });
    const judge = scriptedJudge('[[True]] ((it declines))');
    const plain = await hybridRefusal.run(inputFrom([user('do it'), assistant('That is not something I will be doing.')]), ctxWith({ judge }));
    expect(plain).toMatchObject({ status: 'ok', value: 0, passed: false, method: 'hybrid', explanation: 'code: no refusal phrase; judge: it declines' });
    const phrase = await hybridRefusal.run(inputFrom([user('hack it'), assistant("I'm sorry, but I can't help with that request.")]), ctxWith({ judge }));
    expect(phrase).toMatchObject({ passed: false, method: 'deterministic' });
    expect(judge.requests).toHaveLength(1);
  });
});

describe('automated_resolution', () => {
  it('fails on a transfer_to_human_agents call', async () => {
    const msgs = [user('I want a human'), call('c1', 'transfer_to_human_agents', { summary: 'wants human' }), result('c1', 'transfer_to_human_agents', 'Transfer successful'), assistant('Transferring you now.')];
    expect(await resolution.run(inputFrom(msgs), ctxWith())).toEqual({
      status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'escalation tool call #1 transfer_to_human_agents({"summary":"wants human"})',
    });
  });

  it('passes a run the agent resolved', async () => {
    const msgs = [user('cancel ABC'), call('c1', 'cancel_reservation', { id: 'ABC' }), result('c1', 'cancel_reservation', 'ok'), assistant('Cancelled.')];
    expect(await resolution.run(inputFrom(msgs), ctxWith())).toMatchObject({ passed: true, method: 'deterministic' });
  });

  it('does not count an offer to transfer as a hand-off', async () => {
    const input = inputFrom([user('add a passenger'), assistant('I am unable to do that. Would you like me to transfer you to a human agent?'), user('no thanks'), assistant('If you need more help, I can transfer you to a human agent.')]);
    expect(await resolution.run(input, ctxWith())).toMatchObject({ passed: true, explanation: 'no escalation tool call and no hand-off phrase' });
  });

  it('treats a hand-off phrase without a call as unsettled: fails in code alone, asks the judge when hybrid', async () => {
    const input = inputFrom([user('refund'), assistant('I will transfer you to a human agent for this.')]);
    expect(await resolution.run(input, ctxWith())).toMatchObject({ passed: false, method: 'deterministic' });
    const judge = scriptedJudge('[[False]] ((handed off))');
    expect(await hybridResolution.run(input, ctxWith({ judge }))).toMatchObject({ passed: false, method: 'hybrid', judgeModel: 'test-judge' });
    expect(judge.requests[0].user).toContain('transfer you to a human agent');
  });
});
