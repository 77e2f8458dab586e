import { describe, expect, it } from 'vitest';
import type { RowResult, TryResult } from './result-types.ts';
import { groupByVariant, rollUpTest, testCounts } from './test-rollup.ts';

const attempt = (...passed: Array<boolean | null>): TryResult => ({ try: 0, actual: 'x', metrics: passed.map((p, i) => ({ name: `m${i}`, value: p, passed: p })), passed: passed.every((p) => p !== false), cached: false, latencyMs: 1 });
const row = (skip: boolean, tries: TryResult[], params: Record<string, unknown> = { model: 'm' }): RowResult => ({
  prompt: 'math',
  params,
  reference: { id: '1', input: {}, expected: 1, skip },
  tries,
  counts: { num_passes: 0, num_fails: 0, num_skip_passes: 0, num_skip_fails: 0, n_tries: tries.length },
  status: 'pass',
});

describe('llmeval roll-up per test', () => {
  it('counts every decided metric result of the test, skipped references apart, a failed generation as one fail', () => {
    const failed: TryResult = { try: 1, actual: null, error: 'timeout', metrics: [], passed: false, cached: false, latencyMs: 1 };
    expect(testCounts([row(false, [attempt(true, null), failed]), row(false, [attempt(true, false)]), row(true, [attempt(false), attempt(true)])])).toEqual({
      num_passes: 2, num_fails: 2, num_skip_passes: 1, num_skip_fails: 1, n_tries: 2,
    });
  });

  it('the majority example passes beside a skipped failure; one test per variant', async () => {
    const snippets = { runSnippet: (req: { vars: Record<string, unknown> }) => Promise.resolve({ ok: true as const, values: { result: (req.vars.num_passes as number) > (req.vars.num_fails as number) } }) };
    const rows = [row(false, [attempt(true)]), row(true, [attempt(false)]), row(false, [attempt(false)], { model: 'b' })];
    const tests = await Promise.all(groupByVariant(rows).map((g) => rollUpTest('result = num_passes > num_fails', 'majority', g, { file: 'p.yaml', line: 1 }, snippets)));
    expect(tests.map((t) => [t.params, t.result, t.counts.num_skip_fails])).toEqual([[{ model: 'm' }, 'pass', 1], [{ model: 'b' }, 'fail', 0]]);
  });
});
