import { compareProportions, differenceInterval, mannWhitneyU, meanDifferenceInterval, preferenceStats } from '../stats/index.ts';
import type { TestRunDoc } from './docs.ts';

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** One check's values in run A against run B. */
export interface CheckComparison {
  check: string;
  output_type: 'pass_fail' | 'score';
  a: { scored: number; passed: number | null; mean: number | null };
  b: { scored: number; passed: number | null; mean: number | null };
  /** B − A: of the pass rates (Newcombe) for a pass/fail check, else of the means (normal). */
  difference: { value: number | null; lower: number | null; upper: number | null };
  /** Fisher or z for pass rates; Mann-Whitney for scores. */
  test: { method: string; p_value: number | null };
  /** Same scenario set: the data points where A's value beats B's, B's beats A's, or they tie, with the sign test. */
  paired: { a: number; b: number; ties: number; share_a: number | null; share_b: number | null; p_value: number | null } | null;
}

function okValues(run: TestRunDoc, check: string): Map<string, { value: number; passed: boolean | null }> {
  const out = new Map<string, { value: number; passed: boolean | null }>();
  for (const row of run.rows) {
    const s = row.scores[check];
    if (s?.status === 'ok' && s.value !== null) out.set(row.id, { value: s.value, passed: s.passed });
  }
  return out;
}

/**
 * Two test runs, check by check, with the statistics the compare page uses for versions: pass
 * rates by Fisher's exact or the z-test with Newcombe's interval, scores by Mann-Whitney with the
 * mean difference, and on the same scenario set the pairwise preference per data point.
 */
export function compareTestRuns(a: TestRunDoc, b: TestRunDoc): CheckComparison[] {
  const typeOf = new Map(a.metrics.map((m) => [m.check, m.output_type]));
  return b.metrics
    .filter((m) => typeOf.has(m.check))
    .map((m) => {
      const va = okValues(a, m.check);
      const vb = okValues(b, m.check);
      const passFail = typeOf.get(m.check) === 'pass_fail' && m.output_type === 'pass_fail';
      const side = (v: Map<string, { value: number; passed: boolean | null }>) => {
        const values = [...v.values()];
        return { scored: values.length, passed: passFail ? values.filter((x) => x.passed === true).length : null, mean: values.length === 0 ? null : values.reduce((s, x) => s + x.value, 0) / values.length };
      };
      const sa = side(va);
      const sb = side(vb);
      let difference: CheckComparison['difference'];
      let test: CheckComparison['test'];
      if (passFail) {
        const d = differenceInterval(sa.passed!, sa.scored, sb.passed!, sb.scored);
        const p = compareProportions(sa.passed!, sa.scored, sb.passed!, sb.scored);
        difference = { value: finite(d.difference), lower: finite(d.lower), upper: finite(d.upper) };
        test = { method: p.method, p_value: finite(p.pValue) };
      } else {
        const summary = (v: Map<string, { value: number }>) => [...v.values()].reduce((s, x) => ({ n: s.n + 1, sum: s.sum + x.value, sumSq: s.sumSq + x.value * x.value }), { n: 0, sum: 0, sumSq: 0 });
        const d = meanDifferenceInterval(summary(va), summary(vb));
        const u = mannWhitneyU([...va.values()].map((x) => x.value), [...vb.values()].map((x) => x.value));
        difference = { value: finite(d.difference), lower: finite(d.lower), upper: finite(d.upper) };
        test = { method: `mann-whitney (${u.method})`, p_value: finite(u.pValue) };
      }
      let paired: CheckComparison['paired'] = null;
      if (a.scenario_set_id === b.scenario_set_id) {
        const counts = { a: 0, b: 0, ties: 0 };
        for (const [id, x] of va) {
          const y = vb.get(id);
          if (y === undefined) continue;
          if (x.value > y.value) counts.a++;
          else if (y.value > x.value) counts.b++;
          else counts.ties++;
        }
        const s = preferenceStats(counts);
        paired = { ...counts, share_a: finite(s.shareA), share_b: finite(s.shareB), p_value: finite(s.pValue) };
      }
      return { check: m.check, output_type: passFail ? 'pass_fail' : 'score', a: sa, b: sb, difference, test, paired };
    });
}
