import { describe, expect, it } from 'vitest';
import type { BuiltinCheckDefinition } from '../definition.ts';
import { CheckDefinitionError } from '../definition.ts';
import { assistant, call, ctxWith, inputFrom, result, scriptedJudge, user } from '../test-support.ts';
import { createCheckRegistry } from '../registry.ts';
import { catalogEntries } from './index.ts';

const entry = (name: string) => catalogEntries.find((e) => e.definition.name === name)!;
const withMode = (name: string, mode: string) => {
  const e = entry(name);
  return e.build({ ...(e.definition as BuiltinCheckDefinition), mode: mode as BuiltinCheckDefinition['mode'] });
};
const SEVEN = ['model_refusal', 'loop_guard', 'automated_resolution', 'response_loop', 'simulation_trace_consistency', 'function_parameter_accuracy', 'function_result_present'];
const dialog = inputFrom([user('Find order 7'), call('c1', 'get_order', { id: 'W7_1' }), result('c1', 'get_order', '{"id":"W7_1"}'), assistant('Order W7_1 ships tomorrow.')], {
  simulation_message_history: [user('Find order 7'), assistant('Order W7_1 ships tomorrow.')],
});

describe('the seven judge-described checks: mode deterministic | judge | hybrid', () => {
  it.each(SEVEN)('%s: mode judge asks the documented rubric and reports method model', async (name) => {
    const judge = scriptedJudge(name === 'model_refusal' ? '[[True]] ((it declines))' : '[[False]] ((found a problem))');
    const out = await withMode(name, 'judge').run(dialog, ctxWith({ judge }));
    expect(out).toMatchObject({ status: 'ok', value: 0, passed: false, method: 'model', judgeModel: 'test-judge' });
    expect(judge.requests).toHaveLength(1);
    expect(judge.requests[0].system).toContain('# Task\n');
  });

  it.each(SEVEN)('%s: mode judge without a judge is not_run with the reason', async (name) => {
    expect(await withMode(name, 'judge').run(dialog, ctxWith({ judge: null, judgeUnavailableReason: 'OPENAI_BASE_URL is not set' }))).toEqual({ status: 'not_run', method: 'model', error: 'OPENAI_BASE_URL is not set' });
  });

  it('hybrid: an unsettled code pass goes to the judge; a settled code failure stands without a judge call', async () => {
    const judge = scriptedJudge('[[False]] ((the same reply three times in other words))');
    const twice = inputFrom([user('Find order 7'), assistant('Order W7_1 ships tomorrow.'), user('and?'), assistant('It is on its way.')]);
    const out = await withMode('response_loop', 'hybrid').run(twice, ctxWith({ judge }));
    expect(out).toEqual({
      status: 'ok', value: 0, passed: false, method: 'hybrid', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5,
      explanation: 'code: no repeated assistant responses without new information; judge: the same reply three times in other words',
    });
    const noResult = inputFrom([user('x'), call('c1', 'f'), result('c1', 'f', 'None')]);
    const failed = await withMode('function_result_present', 'hybrid').run(noResult, ctxWith({ judge }));
    expect(failed).toMatchObject({ passed: false, method: 'deterministic' });
    expect(judge.requests).toHaveLength(1);
  });

  it('is set by a short definitions line that keeps the rest of the catalog definition', async () => {
    const registry = createCheckRegistry();
    const check = registry.createOrUpdateCheck({ kind: 'builtin', name: 'loop_guard', mode: 'judge' } as BuiltinCheckDefinition);
    expect(registry.definition('loop_guard')).toMatchObject({ kind: 'builtin', name: 'loop_guard', mode: 'judge', outputType: 'pass_fail', implementationVersion: '3' });
    expect(await check.run(dialog, ctxWith({ judge: scriptedJudge('[[True]] ((no loop))') }))).toMatchObject({ passed: true, method: 'model', explanation: 'judge: no loop' });
  });

  it('refuses an unknown mode, and a mode on a check decided in code only', () => {
    expect(() => withMode('loop_guard', 'llm')).toThrow(CheckDefinitionError);
    expect(() => withMode('levenshtein_distance', 'judge')).toThrow('levenshtein_distance is decided in code only; it has no mode "judge"');
  });
});

describe('function_call_consistency', () => {
  it('scores 0 (fails) when no function was called, as documented', async () => {
    const check = entry('function_call_consistency').build(entry('function_call_consistency').definition);
    expect(await check.run(inputFrom([user('cancel order 7'), assistant('Done!')]), ctxWith())).toEqual({ status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'no function call was made (documented: 0)' });
  });

  it('scores 0 through the registry too, as the scorer and eval build it', async () => {
    const check = createCheckRegistry().get('function_call_consistency')!;
    expect(await check.run(inputFrom([user('cancel order 7'), assistant('Done!')]), ctxWith())).toEqual({ status: 'ok', value: 0, passed: false, method: 'deterministic', explanation: 'no function call was made (documented: 0)' });
  });
});
