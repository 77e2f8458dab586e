import { describe, expect, it } from 'vitest';
import { renderSummary } from './report/render-text.ts';
import type { PromptResult, RunResult } from './result-types.ts';
import { castVariables } from './template.ts';

describe('castVariables: llmeval\'s variables "are or will be cast to strings"', () => {
  it('writes scalars as Python\'s str() does and other values as JSON', () => {
    expect(castVariables({ a: 4, b: 2.5, t: true, f: false, n: null, s: 'x', l: [1, 'y'], o: { k: 1 } })).toEqual({ a: '4', b: '2.5', t: 'True', f: 'False', n: 'None', s: 'x', l: '[1,"y"]', o: '{"k":1}' });
  });
});

const counts = { num_passes: 1, num_fails: 1, num_skip_passes: 0, num_skip_fails: 0, n_tries: 1 };
const row = (status: 'pass' | 'fail' | 'skip') => ({ prompt: 'p', params: {}, reference: { id: '1', input: {}, expected: null, skip: status === 'skip' }, tries: [], counts, status });
const prompt = (name: string, statuses: ('pass' | 'fail' | 'skip')[], tests?: PromptResult['tests']): PromptResult => ({ name, file: `${name}.yaml`, config: {}, metrics: [], rollup: 'all', nTries: 1, rows: statuses.map(row), ...(tests ? { tests } : {}) });
const run = (prompts: PromptResult[], passed: boolean): RunResult => ({ runId: 'r', configFile: 'x.yaml', config: {}, startedAt: '', finishedAt: '', passed, summary: { rows: 0, passed: 0, failed: 0, skipped: 0, tries: 0, cachedTries: 0, resumedTries: 0 }, prompts });

describe('renderSummary counts a test with roll-up code by its roll-up', () => {
  it('one test whose roll-up passes over a failed reference: "1 passed, 0 failed of 1 tests"', () => {
    const r = run([prompt('math', ['fail'], [{ name: 'lenient', params: {}, counts, result: 'pass' }])], true);
    expect(renderSummary([r])).toBe('math lenient: PASS (num_passes=1 num_fails=1 num_skip_passes=0 num_skip_fails=0)\nPASSED: 1 passed, 0 failed of 1 tests by their roll-up (run r)\n');
  });

  it('without roll-up code, references as before', () => {
    expect(renderSummary([run([prompt('math', ['pass', 'fail', 'skip'])], false)])).toBe('FAILED: 1 passed, 1 failed, 1 skipped of 3 references (run r)\n');
  });
});
