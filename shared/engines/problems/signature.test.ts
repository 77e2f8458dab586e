import { describe, expect, it } from 'vitest';
import { groupingKey, signatureOf, isFailure } from './signature.ts';
import { failed, failureUnit, passed } from './test-support.ts';

describe('signatures', () => {
  it('keys a failing tool call by tool and error class, at the agent and step where it failed', () => {
    const unit = failureUnit('u1', { tools: [['search', null], ['book_flight', 'HTTP 503 Service Unavailable'], ['book_flight', 'HTTP 503 Service Unavailable']] });
    const sig = signatureOf(unit, [failed('task_completed', 'The booking was not made.'), passed('politeness')]);
    expect(sig).toEqual({
      cause: 'tool_error', agent: 'support', checks: ['task_completed:fail'], tool: 'book_flight', errorClass: 'unavailable',
      loop: null, handoff: null, point: { agent: 'support', step: 1 }, text: 'HTTP 503 Service Unavailable',
    });
    expect(groupingKey(sig, 't1')).toBe('tool_error\u0000support\u0000book_flight\u0000unavailable');
  });

  it('finds a loop of identical successful calls, shortest cycle first', () => {
    const args = '{"q":"x"}';
    const unit = failureUnit('u2', { tools: [['plan', null], ['search', null, args], ['open', null, '{}'], ['search', null, args], ['open', null, '{}'], ['search', null, args], ['open', null, '{}']] });
    const sig = signatureOf(unit, [failed('no_loops')]);
    expect(sig.cause).toBe('loop');
    expect(sig.loop).toEqual({ cycle: ['search', 'open'], repeats: 3, start: 1, agent: 'support' });
    expect(groupingKey(sig, 't')).toBe('loop\u0000support\u0000search>open');
    expect(signatureOf(failureUnit('u3', { tools: [['search', null, '{"q":1}'], ['search', null, '{"q":2}'], ['search', null, '{"q":3}']] }), [failed('x')]).cause).toBe('check');
  });

  it('places a loop at its first call among the steps, model turns between the calls included', () => {
    const base = failureUnit('u7', { tools: [['lookup', null, '{}'], ['search', null, '{"q":1}'], ['search', null, '{"q":1}'], ['search', null, '{"q":1}']] });
    const model = (i: number) => ({ type: 'model' as const, agent: 'support', start_ms: i, model: 'm', latency_ms: 1, input_tokens: 0, output_tokens: 0, finish_reason: null });
    const steps = base.steps!.flatMap((s, i) => [model(i) as never, s]);
    const sig = signatureOf({ ...base, steps }, [failed('loop_guard')]);
    expect([sig.cause, sig.loop, sig.point]).toEqual(['loop', { cycle: ['search'], repeats: 3, start: 3, agent: 'support' }, { agent: 'support', step: 3 }]);
    expect(signatureOf({ ...base, steps: [] }, [failed('loop_guard')]).point).toEqual({ agent: 'support', step: 1 });
  });

  it('finds a hand-off never given back', () => {
    const unit = failureUnit('u4', {
      steps: [
        { type: 'handoff', agent: 'billing', from: 'triage', start_ms: 1 },
        { type: 'handoff', agent: 'triage', from: 'billing', start_ms: 2 },
        { type: 'handoff', agent: 'refunds', from: 'triage', start_ms: 3 },
      ],
    });
    const sig = signatureOf(unit, [failed('task_completed')]);
    expect([sig.cause, sig.handoff, sig.point]).toEqual(['handoff_unreturned', 'triage>refunds', { agent: 'triage', step: 2 }]);
  });

  it('falls back to the run error, then to the failing check and its explanation', () => {
    const withError = failureUnit('u5', { errors: [{ type: 'ValueError', message: 'invalid literal for int(): "abc"' }] });
    expect(signatureOf(withError, [])).toMatchObject({ cause: 'unit_error', errorClass: 'invalid_argument', text: 'invalid literal for int(): "abc"' });
    const onlyCheck = failureUnit('u6');
    const sig = signatureOf(onlyCheck, [failed('tone', 'Too curt.'), failed('refusal', 'The agent refused to help with order 12.'), { check: 'judge', status: 'error', passed: null, explanation: '', error: 'judge timed out' }]);
    expect(sig.checks).toEqual(['judge:error', 'refusal:fail', 'tone:fail']);
    expect(sig.text).toBe('judge timed out');
    expect(groupingKey(sig, 'abc')).toBe('check\u0000support\u0000judge:error\u0000abc');
  });

  it('says which units failed: a failed or errored check, or an error on the run; not_run is no verdict', () => {
    expect(isFailure(failureUnit('a'), [passed('x')])).toBe(false);
    expect(isFailure(failureUnit('a'), [{ check: 'x', status: 'not_run', passed: null, explanation: '', error: 'no judge' }])).toBe(false);
    expect(isFailure(failureUnit('a'), [failed('x')])).toBe(true);
    expect(isFailure(failureUnit('a', { errors: [{ message: 'boom' }] }), [])).toBe(true);
  });
});
