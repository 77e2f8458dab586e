import type { ScoreAggregate, ValueCount as StoreValueCount } from '../../../shared/adapters/store/index.ts';
import { compareProportions, differenceInterval, mannWhitneyFromCounts, meanDifferenceInterval, meanInterval, wilsonInterval } from '../../../shared/engines/stats/index.ts';

// What the monitoring endpoints compute from the store's aggregates: pure functions, so that the
// numbers users rely on are tested without a server. Rates count only `status: "ok"` scores with a
// verdict; intervals are 95%.

/** JSON has no Infinity: an unbounded end is null. */
const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
const round = (v: number | null, digits = 6): number | null => (v === null ? null : Number(v.toFixed(digits)));

export interface RateStats {
  /** `ok` scores. */
  n: number;
  passed: number;
  /** passed / (ok scores with a verdict); null when none. */
  pass_rate: number | null;
  ci: [number, number] | null;
  /** Mean of `value` over ok scores; null when none has a value. */
  mean: number | null;
  mean_ci: [number | null, number | null] | null;
  total: number;
  error_count: number;
  not_run_count: number;
}

export const EMPTY_AGGREGATE = (check: string, t: number | null = null): ScoreAggregate => ({
  check,
  t,
  total: 0,
  n: 0,
  passed: 0,
  judged: 0,
  valued: 0,
  value_sum: 0,
  value_sq_sum: 0,
  error_count: 0,
  not_run_count: 0,
  mean_lag_ms: null,
});

export function rateStats(a: ScoreAggregate): RateStats {
  const w = a.judged > 0 ? wilsonInterval(a.passed, a.judged) : null;
  const m = a.valued > 0 ? meanInterval(a.valued, a.value_sum, a.value_sq_sum) : null;
  return {
    n: a.n,
    passed: a.passed,
    pass_rate: a.judged > 0 ? round(a.passed / a.judged) : null,
    ci: w ? [round(w.lower) ?? 0, round(w.upper) ?? 1] : null,
    mean: m ? round(m.mean) : null,
    mean_ci: m ? [round(finite(m.low)), round(finite(m.high))] : null,
    total: a.total,
    error_count: a.error_count,
    not_run_count: a.not_run_count,
  };
}

export interface SeriesPoint {
  /** Bucket start, epoch ms. */
  t: number;
  n: number;
  passed: number;
  pass_rate: number | null;
  wilson_low: number | null;
  wilson_high: number | null;
  mean: number | null;
  error_count: number;
  not_run_count: number;
}

/** One point per bucket in [from, to), empty buckets included (n = 0), so charts show the gaps. */
export function seriesPoints(check: string, aggregates: readonly ScoreAggregate[], bucketMs: number, fromMs: number, toMs: number): SeriesPoint[] {
  const byT = new Map(aggregates.filter((a) => a.check === check && a.t !== null).map((a) => [a.t as number, a]));
  const points: SeriesPoint[] = [];
  for (let t = Math.floor(fromMs / bucketMs) * bucketMs; t < toMs; t += bucketMs) {
    const s = rateStats(byT.get(t) ?? EMPTY_AGGREGATE(check, t));
    points.push({
      t,
      n: s.n,
      passed: s.passed,
      pass_rate: s.pass_rate,
      wilson_low: s.ci?.[0] ?? null,
      wilson_high: s.ci?.[1] ?? null,
      mean: s.mean,
      error_count: s.error_count,
      not_run_count: s.not_run_count,
    });
  }
  return points;
}

interface ArmStats {
  n: number;
  passed: number | null;
  /** Pass rate (pass/fail checks) or mean (score checks). */
  rate: number | null;
  mean: number | null;
  ci: [number | null, number | null] | null;
}

type Verdict = 'worse' | 'better' | 'no significant difference';

export interface Comparison {
  check: string;
  type: 'pass_fail' | 'score';
  a: ArmStats;
  b: ArmStats;
  test: 'two-proportion z' | 'fisher exact' | 'mann-whitney u' | 'none';
  p_value: number;
  /** B − A: pass rate (or mean) difference with its 95% interval. */
  difference: { value: number | null; ci: [number | null, number | null] | null };
  verdict: Verdict;
}

function verdictOf(pValue: number, difference: number | null, alpha: number): Verdict {
  if (difference === null || !(pValue < alpha) || difference === 0) return 'no significant difference';
  return difference < 0 ? 'worse' : 'better';
}

/**
 * B against A for one check. Pass/fail checks (any verdict on either side): Wilson intervals,
 * Fisher's exact test when an expected cell is under 5, else the pooled two-proportion z-test, and
 * Newcombe's interval for the difference. Score checks: means with normal intervals, Mann–Whitney U
 * on the value counts, Welch's interval for the difference.
 */
export function compareCheck(
  check: string,
  a: ScoreAggregate,
  b: ScoreAggregate,
  alpha: number,
  valueCounts: { a: readonly StoreValueCount[]; b: readonly StoreValueCount[] } | null,
): Comparison {
  if (a.judged > 0 || b.judged > 0 || (a.valued === 0 && b.valued === 0)) {
    const arm = (x: ScoreAggregate): ArmStats => {
      const s = rateStats(x);
      return { n: x.judged, passed: x.passed, rate: s.pass_rate, mean: null, ci: s.ci };
    };
    const armA = arm(a);
    const armB = arm(b);
    if (a.judged === 0 || b.judged === 0) {
      return { check, type: 'pass_fail', a: armA, b: armB, test: 'none', p_value: 1, difference: { value: null, ci: null }, verdict: 'no significant difference' };
    }
    const cmp = compareProportions(a.passed, a.judged, b.passed, b.judged);
    const d = differenceInterval(a.passed, a.judged, b.passed, b.judged);
    const value = round(d.difference);
    return {
      check,
      type: 'pass_fail',
      a: armA,
      b: armB,
      test: cmp.method === 'fisher' ? 'fisher exact' : 'two-proportion z',
      p_value: cmp.pValue,
      difference: { value, ci: [round(d.lower), round(d.upper)] },
      verdict: verdictOf(cmp.pValue, value, alpha),
    };
  }
  const arm = (x: ScoreAggregate): ArmStats => {
    const s = rateStats(x);
    return { n: x.valued, passed: null, rate: s.mean, mean: s.mean, ci: s.mean_ci };
  };
  const armA = arm(a);
  const armB = arm(b);
  if (a.valued === 0 || b.valued === 0 || !valueCounts) {
    return { check, type: 'score', a: armA, b: armB, test: 'none', p_value: 1, difference: { value: null, ci: null }, verdict: 'no significant difference' };
  }
  const mw = mannWhitneyFromCounts(valueCounts.a, valueCounts.b);
  const d = meanDifferenceInterval({ n: a.valued, sum: a.value_sum, sumSq: a.value_sq_sum }, { n: b.valued, sum: b.value_sum, sumSq: b.value_sq_sum });
  const value = round(d.difference);
  return {
    check,
    type: 'score',
    a: armA,
    b: armB,
    test: 'mann-whitney u',
    p_value: mw.pValue,
    difference: { value, ci: [round(finite(d.lower)), round(finite(d.upper))] },
    verdict: verdictOf(mw.pValue, value, alpha),
  };
}
