import { canonicalJson } from '../../../shared/engines/checks/index.ts';
import { EvalConfigError } from './eval-error.ts';
import type { RollupCounts, RowResult, TestRollup } from './result-types.ts';
import type { SnippetRunner } from './run-metrics.ts';
import { pythonTruthy } from './run-metrics.ts';
import type { Place } from './suite-types.ts';

/**
 * llmeval's counts for one test (a prompt variant): every decided metric result of every try of
 * every reference, a failed generation counting as one fail. Skipped references count only in
 * `num_skip_*`, so a skipped failure cannot sink a majority. Value-only metrics (no pass/fail) do
 * not count.
 */
export function testCounts(rows: readonly RowResult[]): RollupCounts {
  const c: RollupCounts = { num_passes: 0, num_fails: 0, num_skip_passes: 0, num_skip_fails: 0, n_tries: 0 };
  for (const row of rows) {
    c.n_tries = Math.max(c.n_tries, row.tries.length);
    for (const t of row.tries) {
      const verdicts = t.error !== undefined ? [false] : t.metrics.filter((m) => m.passed !== null || m.error !== undefined).map((m) => m.passed === true && m.error === undefined);
      for (const ok of verdicts) {
        if (row.reference.skip) c[ok ? 'num_skip_passes' : 'num_skip_fails']++;
        else c[ok ? 'num_passes' : 'num_fails']++;
      }
    }
  }
  return c;
}

/** Rows grouped by variant (model and parameters), in first-seen order: each group is one test. */
export function groupByVariant(rows: readonly RowResult[]): RowResult[][] {
  const groups = new Map<string, RowResult[]>();
  for (const r of rows) {
    const key = canonicalJson(r.params);
    const list = groups.get(key) ?? [];
    list.push(r);
    groups.set(key, list);
  }
  return [...groups.values()];
}

/**
 * Runs llmeval's `metrics_rollup` code once per test over the test's counts; the code sets
 * `result`. A failing snippet is a configuration error, like a failing roll-up expression.
 */
export async function rollUpTest(code: string, name: string, rows: readonly RowResult[], place: Place, snippets: SnippetRunner | null): Promise<TestRollup> {
  const counts = testCounts(rows);
  if (!snippets) throw new EvalConfigError('metrics_rollup code needs Python, which this run has not', place.file, place.line);
  const res = await snippets.runSnippet({ source: code, vars: { ...counts }, outputs: ['result', 'metric'] });
  if (!res.ok) throw new EvalConfigError(`metrics_rollup code failed: ${res.error}`, place.file, place.line);
  const verdict = res.values.result ?? res.values.metric;
  if (verdict === undefined) throw new EvalConfigError('metrics_rollup code set no result', place.file, place.line);
  return { name, params: rows[0]?.params ?? {}, counts, result: pythonTruthy(verdict) ? 'pass' : 'fail' };
}
