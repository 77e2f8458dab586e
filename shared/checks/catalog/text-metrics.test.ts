import { describe, expect, it } from 'vitest';
import { assistant, ctxWith, inputFrom, user } from '../test-support.ts';
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

  it('compression_ratio is input characters over output characters', async () => {
    expect(await run(compressionRatio, input)).toMatchObject({ status: 'ok', value: 6.5, explanation: '39 input characters / 6 output characters' });
  });

  it('uniqueness scores a row against the other rows of the batch', async () => {
    const a = { ...inputFrom([assistant('The weather is sunny today.')]), id: 'a' };
    const b = { ...inputFrom([assistant('The weather is sunny today!')]), id: 'b' };
    const c = { ...inputFrom([assistant('Completely different words here.')]), id: 'c' };
    expect(await run(uniqueness, a, [a, b, c])).toMatchObject({ status: 'ok', value: 0, explanation: 'compared with 2 other rows; most similar: b (similarity 1.000)' });
    const alone = await run(uniqueness, c, [a, b, c]);
    expect(alone.status === 'ok' && alone.value > 0.5).toBe(true);
    expect(await run(uniqueness, a)).toMatchObject({ value: 1, explanation: 'no other rows in the batch to compare with' });
  });
});
