import { exactUCdf, EXACT_LIMIT, type ValueCount } from './mann-whitney.ts';
import { normalCdf } from './normal.ts';

/** The shift B − A of two samples: the Hodges–Lehmann estimate and its distribution-free interval. */
export interface ShiftInterval {
  /** The median of the nA·nB differences b − a; NaN while either side is empty. */
  estimate: number;
  lower: number;
  upper: number;
  /** The interval's confidence: exact (at least 95%) or its normal approximation. */
  confidence: number;
  method: 'exact' | 'normal';
}

interface Arm {
  values: number[];
  counts: number[];
  n: number;
}

/** Distinct values ascending with their counts (a value listed twice adds up). */
function armOf(list: readonly ValueCount[]): Arm {
  const byValue = new Map<number, number>();
  for (const { value, count } of list) {
    if (!Number.isFinite(value) || !Number.isInteger(count) || count < 0) throw new RangeError(`invalid value count ${value} × ${count}`);
    if (count > 0) byValue.set(value, (byValue.get(value) ?? 0) + count);
  }
  const values = [...byValue.keys()].sort((x, y) => x - y);
  const counts = values.map((v) => byValue.get(v)!);
  return { values, counts, n: counts.reduce((s, c) => s + c, 0) };
}

/**
 * The k-th smallest (1-based, counting multiplicities) of the differences b − a, without listing
 * them: a bisection on the value where every step counts the differences ≤ d in one two-pointer
 * pass (b − a falls as a rises and rises with b) and snaps the bounds to differences that exist,
 * so it ends on an exact difference in O((distinct A + distinct B) · steps).
 */
function kthDifference(a: Arm, b: Arm, k: number): number {
  const lastA = a.values.length - 1;
  const pass = (d: number): { count: number; maxAtMost: number; minAbove: number } => {
    let count = 0;
    let maxAtMost = -Infinity;
    let minAbove = Infinity;
    let i = 0; // first index of A with b_j − a_i ≤ d; moves right as b_j grows
    let suffix = a.n; // units of A from index i on
    for (let j = 0; j < b.values.length; j++) {
      const bj = b.values[j];
      while (i <= lastA && bj - a.values[i] > d) suffix -= a.counts[i++];
      count += b.counts[j] * suffix;
      if (i <= lastA) maxAtMost = Math.max(maxAtMost, bj - a.values[i]);
      if (i > 0) minAbove = Math.min(minAbove, bj - a.values[i - 1]);
    }
    return { count, maxAtMost, minAbove };
  };
  let lo = b.values[0] - a.values[lastA];
  let hi = b.values[b.values.length - 1] - a.values[0];
  while (lo < hi) {
    let mid = lo / 2 + hi / 2;
    if (!(mid < hi)) mid = lo;
    const p = pass(mid);
    if (p.count >= k) hi = p.maxAtMost;
    else lo = p.minAbove;
  }
  return lo;
}

/** z with P(Z > z) = p, by bisection on normalCdf (to double precision; only called once per interval). */
function upperNormalQuantile(p: number): number {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200 && lo < hi; i++) {
    const mid = (lo + hi) / 2;
    if (1 - normalCdf(mid) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Hodges–Lehmann estimate of the shift B − A (the median of all differences b − a) with the
 * distribution-free confidence interval that inverts the Mann–Whitney test (Hollander & Wolfe,
 * "Nonparametric Statistical Methods", §4.3; what R's `wilcox.test(conf.int = TRUE)` gives):
 * [d₍k₎, d₍N−k+1₎] of the N = nA·nB sorted differences. Without ties and both samples under 50,
 * k is the smallest with P(U ≤ k) ≥ α/2 under the exact null (at least 1), and the confidence is
 * 1 − 2·P(U ≤ k − 1). Otherwise k = round(N/2 − z₁₋α/₂·σ_U) with σ_U corrected for ties (the normal
 * approximation with continuity correction), at least 1. Samples come as counts per value, as SQL's
 * GROUP BY gives them.
 */
export function hodgesLehmannShift(countsA: readonly ValueCount[], countsB: readonly ValueCount[], alpha = 0.05): ShiftInterval {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const a = armOf(countsA);
  const b = armOf(countsB);
  if (a.n === 0 || b.n === 0) return { estimate: Number.NaN, lower: Number.NaN, upper: Number.NaN, confidence: Number.NaN, method: 'normal' };
  const pairs = a.n * b.n;
  const estimate = pairs % 2 === 1 ? kthDifference(a, b, (pairs + 1) / 2) : (kthDifference(a, b, pairs / 2) + kthDifference(a, b, pairs / 2 + 1)) / 2;
  const total = a.n + b.n;
  let tieTerm = 0;
  const both = new Map<number, number>();
  for (const arm of [a, b]) arm.values.forEach((v, i) => both.set(v, (both.get(v) ?? 0) + arm.counts[i]));
  for (const t of both.values()) tieTerm += t * t * t - t;
  let k: number;
  let confidence: number;
  let method: ShiftInterval['method'];
  if (tieTerm === 0 && a.n < EXACT_LIMIT && b.n < EXACT_LIMIT) {
    const cdf = exactUCdf(a.n, b.n);
    k = Math.max(1, cdf.findIndex((p) => p >= alpha / 2));
    confidence = 1 - 2 * cdf[k - 1];
    method = 'exact';
  } else {
    const z = upperNormalQuantile(alpha / 2);
    const sigma = Math.sqrt(((a.n * b.n) / 12) * (total + 1 - tieTerm / (total * (total - 1))));
    k = Math.min(Math.max(1, Math.round(pairs / 2 - z * sigma)), Math.ceil(pairs / 2));
    confidence = sigma === 0 ? 0 : 1 - 2 * normalCdf((k - 0.5 - pairs / 2) / sigma);
    method = 'normal';
  }
  return { estimate, lower: kthDifference(a, b, k), upper: kthDifference(a, b, pairs - k + 1), confidence, method };
}
