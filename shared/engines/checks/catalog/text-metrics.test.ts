import { describe, expect, it } from 'vitest';
import { assistant, ctxWith, inputFrom, scriptedJudge, user } from '../test-support.ts';
import { compressionRatio } from './compression-ratio.ts';
import { levenshteinDistance, levenshteinDistanceInput } from './levenshtein-distance.ts';
import { uniqueness } from './uniqueness.ts';

const run = (entry: typeof uniqueness, input: ReturnType<typeof inputFrom>, batch?: ReturnType<typeof inputFrom>[]) =>
  entry.build(entry.definition).run(input, ctxWith(batch ? { batch } : {}));

describe('text metrics', () => {
  const input = inputFrom([user('q'), assistant('kitten')], { scenario_result: 'sitting', scenario_input: 'a long input text of forty characters..' });

  it('levenshtein_distance compares the output with the scenario result, _input with the scenario input', async () => {
    expect(await run(levenshteinDistance, input)).toEqual({ status: 'ok', value: 3, passed: null, method: 'deterministic', explanation: '3 edits between 6 output and 7 scenario_result characters' });
    expect(await run(levenshteinDistanceInput, input)).toMatchObject({ status: 'ok', value: 35 });
    expect(await run(levenshteinDistance, inputFrom([assistant('x')]))).toEqual({ status: 'not_run', method: 'deterministic', error: 'needs scenario_result, which this unit does not carry' });
  });

  it('levenshtein_distance(_input) count code points, as Python does', async () => {
    expect(await run(levenshteinDistance, inputFrom([assistant('Thanks 😀')], { scenario_result: 'Thanks' }))).toEqual({
      status: 'ok', value: 2, passed: null, method: 'deterministic', explanation: '2 edits between 8 output and 6 scenario_result characters',
    });
    expect(await run(levenshteinDistanceInput, inputFrom([assistant('👍')], { scenario_input: '👎' }))).toMatchObject({ status: 'ok', value: 1 });
  });

  it('compression_ratio is len(model_output) / len(scenario_input), unrounded, in code points', async () => {
    expect(await run(compressionRatio, input)).toEqual({ status: 'ok', value: 6 / 39, passed: null, method: 'deterministic', explanation: '6 output characters / 39 input characters' });
    // Python's len counts code points: 'naïve café ☕' is 12, 'abc' 3 → 4.0 (CPython 3.11).
    expect(await run(compressionRatio, inputFrom([assistant('naïve café ☕')], { scenario_input: 'abc' }))).toMatchObject({ status: 'ok', value: 4 });
    expect(await run(compressionRatio, inputFrom([assistant('x'.repeat(250))], { scenario_input: 'y'.repeat(1000) }))).toMatchObject({ status: 'ok', value: 0.25 });
    expect(await run(compressionRatio, inputFrom([assistant('out')], { scenario_input: '' }))).toEqual({ status: 'not_run', method: 'deterministic', error: 'needs a non-empty scenario_input, which this unit does not carry' });
  });

  it('uniqueness asks the judge to rate the output 1–5 against the other outputs of the evaluation', async () => {
    const a = { ...inputFrom([assistant('The weather is sunny today.')]), id: 'a' };
    const b = { ...inputFrom([assistant('The weather is sunny today!')]), id: 'b' };
    const c = { ...inputFrom([assistant('Completely different words here.')]), id: 'c' };
    const judge = scriptedJudge('[[1]] ((a near copy of another output))');
    const check = uniqueness.build(uniqueness.definition);
    expect(await check.run(a, ctxWith({ judge, batch: [a, b, c] }))).toEqual({
      status: 'ok', value: 1, passed: false, method: 'model', explanation: 'a near copy of another output (compared with 2 other outputs)', judgeModel: 'test-judge', inputTokens: 10, outputTokens: 5,
    });
    const req = judge.requests[0];
    expect(req.system).toContain('Rate how unique the AI output is');
    expect(req.user).toMatch(/<<<DATA-(\w+) model_output>>>\n"The weather is sunny today\."\n<<<END-DATA-\1>>>\n\n<<<DATA-\1 other_outputs>>>\n\[\n"The weather is sunny today!",\n"Completely different words here\."\n\]\n<<<END-DATA-\1>>>$/);
    expect(await check.run(a, ctxWith({ judge }))).toEqual({ status: 'not_run', method: 'model', error: 'no other outputs in this evaluation to compare with' });
    expect(await check.run(a, ctxWith({ batch: [a, b] }))).toEqual({ status: 'not_run', method: 'model', error: 'no judge in this test' });
  });
});
