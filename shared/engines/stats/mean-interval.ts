import type { DifferenceInterval } from './difference-interval.ts';
import type { MeanSummary } from './mean-summary.ts';
import { assertSummary, summaryMean, summaryVariance } from './mean-summary.ts';
import { Z_95 } from './wilson.ts';

export interface MeanInterval {
  /** NaN with no values. */
  mean: number;
  low: number;
  high: number;
}

/**
 * Normal-approximation interval mean ± z·s/√n from count, sum and sum of squares, s with the n − 1
 * denominator. At n = 30 the Student-t interval is about 4% wider, less beyond; callers with fewer values
 * wanting t pass its quantile as z (t₀.₉₇₅ with 9 degrees of freedom is 2.262). Under two values
 * there is no estimate of spread and the interval is the whole line.
 */
export function meanInterval(n: number, sum: number, sumSq: number, z: number = Z_95): MeanInterval {
  const s: MeanSummary = { n, sum, sumSq };
  assertSummary(s);
  const mean = summaryMean(s);
  if (n < 2) return { mean, low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY };
  const half = z * Math.sqrt(summaryVariance(s) / n);
  return { mean, low: mean - half, high: mean + half };
}

/**
 * Interval for meanB − meanA with Welch's unpooled standard error sqrt(s²_A/n_A + s²_B/n_B) and the
 * normal quantile z. Unpooled because an interval, unlike the sequential test, assumes no null in
 * which the two variances agree. Under two values on either side: the whole line.
 */
export function meanDifferenceInterval(a: MeanSummary, b: MeanSummary, z: number = Z_95): DifferenceInterval {
  assertSummary(a);
  assertSummary(b);
  const difference = summaryMean(b) - summaryMean(a);
  if (a.n < 2 || b.n < 2) return { difference, lower: Number.NEGATIVE_INFINITY, upper: Number.POSITIVE_INFINITY };
  const half = z * Math.sqrt(summaryVariance(a) / a.n + summaryVariance(b) / b.n);
  return { difference, lower: difference - half, upper: difference + half };
}
