import type { MetricValueCount, Store } from '../../../shared/adapters/store/index.ts';
import { hodgesLehmannShift, mannWhitneyFromCounts } from '../../../shared/engines/stats/index.ts';
import { toScoreFilters, type UnitFilterValues } from './query-params.ts';

// Compare on latency and cost: B against A on a unit metric with a rank test and an
// interval for the shift. Neither needs a distribution (latencies and costs are skewed, heavy-tailed)
// and both work from counts per distinct value, which the store groups in SQL: the API never reads
// single units, so a window of a million units costs one GROUP BY per side.

const COMPARE_METRICS = ['duration_ms', 'cost_usd', 'tokens'] as const;
export type CompareMetric = (typeof COMPARE_METRICS)[number];

/** Distinct values read per side; past this the metric is reported as `too_many_values` (narrow the window). */
const MAX_COMPARE_VALUES = 200_000;

interface MetricSide {
  /** Units with a value. */
  n: number;
  median: number | null;
}

export interface MetricComparison {
  metric: CompareMetric;
  a: MetricSide;
  b: MetricSide;
  test: 'mann_whitney_u';
  /** Exact null distribution (no ties, both sides under 50) or the normal approximation with tie and continuity corrections. */
  method: 'exact' | 'normal' | null;
  u: number | null;
  p_value: number | null;
  /** Hodges–Lehmann estimate of B − A (the median of all differences) and its distribution-free interval. */
  shift: { estimate: number | null; ci: [number | null, number | null]; confidence: number | null };
  /** `higher`/`lower`: B's values are significantly above/below A's at alpha. */
  verdict: 'higher' | 'lower' | 'no significant difference' | 'insufficient data' | 'too many values';
}

/** The median of values given as counts (the mean of the two middle values for an even count). */
export function medianOfCounts(sorted: readonly MetricValueCount[]): number | null {
  const n = sorted.reduce((s, x) => s + x.count, 0);
  if (n === 0) return null;
  const at = (k: number): number => {
    let seen = 0;
    for (const x of sorted) {
      seen += x.count;
      if (seen >= k) return x.value;
    }
    return sorted[sorted.length - 1].value;
  };
  return n % 2 === 1 ? at((n + 1) / 2) : (at(n / 2) + at(n / 2 + 1)) / 2;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** B against A on one metric, from each side's counts per value (smallest first). */
export function compareMetricCounts(metric: CompareMetric, countsA: readonly MetricValueCount[], countsB: readonly MetricValueCount[], alpha: number): MetricComparison {
  const side = (c: readonly MetricValueCount[]): MetricSide => ({ n: c.reduce((s, x) => s + x.count, 0), median: medianOfCounts(c) });
  const a = side(countsA);
  const b = side(countsB);
  const none = { test: 'mann_whitney_u' as const, method: null, u: null, p_value: null, shift: { estimate: null, ci: [null, null] as [null, null], confidence: null } };
  if (countsA.length > MAX_COMPARE_VALUES || countsB.length > MAX_COMPARE_VALUES) return { metric, a: { n: a.n, median: null }, b: { n: b.n, median: null }, ...none, verdict: 'too many values' };
  if (a.n < 2 || b.n < 2) return { metric, a, b, ...none, verdict: 'insufficient data' };
  const t = mannWhitneyFromCounts(countsB, countsA);
  const s = hodgesLehmannShift(countsA, countsB, alpha);
  // U counts pairs where B exceeds A: above half of all pairs means B tends higher.
  const verdict = t.pValue < alpha ? (t.probabilityOfSuperiority > 0.5 ? 'higher' : 'lower') : 'no significant difference';
  return {
    metric,
    a,
    b,
    test: 'mann_whitney_u',
    method: t.method,
    u: t.u,
    p_value: t.pValue,
    shift: { estimate: finite(s.estimate), ci: [finite(s.lower), finite(s.upper)], confidence: finite(s.confidence) },
    verdict,
  };
}

/** B against A on duration, cost and tokens over [from, to) by unit end time. */
export async function compareMetrics(
  store: Store,
  q: { project: string; a: UnitFilterValues; b: UnitFilterValues; alpha: number; from?: number | undefined; to?: number | undefined },
): Promise<MetricComparison[]> {
  const range = { ...(q.from !== undefined ? { fromMs: q.from } : {}), ...(q.to !== undefined ? { toMs: q.to } : {}) };
  const values = (f: UnitFilterValues, metric: CompareMetric) => store.metricValues({ ...toScoreFilters(f), ...range, project: q.project, metric, maxValues: MAX_COMPARE_VALUES + 1 });
  return Promise.all(
    COMPARE_METRICS.map(async (metric) => {
      const [ca, cb] = await Promise.all([values(q.a, metric), values(q.b, metric)]);
      return compareMetricCounts(metric, ca, cb, q.alpha);
    }),
  );
}
