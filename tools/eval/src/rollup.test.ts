import { describe, expect, it } from 'vitest';
import { compileExpression } from './expression/index.ts';
import { ROLLUP_NAMES } from './load-prompt.ts';
import { rollupCounts, rollupStatus } from './rollup.ts';
import { parseTemplate, renderTemplate } from './template.ts';

const place = { file: 'p.yaml', line: 3 };
const majority = compileExpression('num_passes > num_fails', ROLLUP_NAMES);

describe('roll-up', () => {
  it('default: any failed try fails the reference', () => {
    expect(rollupStatus(rollupCounts([true, true], false), false, null, place)).toBe('pass');
    expect(rollupStatus(rollupCounts([true, false, true], false), false, null, place)).toBe('fail');
  });

  it('majority passes 2 of 3 and fails 1 of 3', () => {
    expect(rollupStatus(rollupCounts([true, false, true], false), false, majority, place)).toBe('pass');
    expect(rollupStatus(rollupCounts([false, false, true], false), false, majority, place)).toBe('fail');
  });

  it('skipped references count apart and never fail unless the policy reads their counts', () => {
    const counts = rollupCounts([false, false], true);
    expect(counts).toEqual({ num_passes: 0, num_fails: 0, num_skip_passes: 0, num_skip_fails: 2, n_tries: 2 });
    expect(rollupStatus(counts, true, null, place)).toBe('skip');
    expect(rollupStatus(counts, true, majority, place)).toBe('skip');
    expect(rollupStatus(counts, true, compileExpression('num_skip_fails == 0', ROLLUP_NAMES), place)).toBe('fail');
  });

  it('a roll-up expression that throws names its place', () => {
    expect(() => rollupStatus(rollupCounts([true], false), false, compileExpression('num_passes / num_fails > 1', ROLLUP_NAMES), place)).toThrow(
      /^p\.yaml:3: metrics_rollup "num_passes \/ num_fails > 1" failed: division by zero/,
    );
  });
});

describe('templates', () => {
  it('substitutes variables; {{ }} are literal; stray braces stay', () => {
    const t = parseTemplate('What is {a} + {b}? {{a}} {"x": 1} {a}');
    expect(t.variables).toEqual(['a', 'b']);
    expect(renderTemplate(t, { a: 2, b: 'three' })).toBe('What is 2 + three? {a} {"x": 1} 2');
    expect(renderTemplate(parseTemplate('{o}'), { o: { k: [1] } })).toBe('{"k":[1]}');
  });
});
