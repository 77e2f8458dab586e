/**
 * A sample of numeric values summarised the way SQL aggregates it: count, sum and sum of squares.
 * Everything about means in this folder works from these three numbers, never from the values.
 */
export interface MeanSummary {
  n: number;
  sum: number;
  sumSq: number;
}

export function assertSummary(s: MeanSummary): void {
  if (!Number.isInteger(s.n) || s.n < 0 || !Number.isFinite(s.sum) || !Number.isFinite(s.sumSq) || s.sumSq < 0) {
    throw new RangeError(`invalid summary: n=${s.n} sum=${s.sum} sumSq=${s.sumSq}`);
  }
}

/** Mean of the summarised values; NaN with none. */
export function summaryMean(s: MeanSummary): number {
  return s.n === 0 ? Number.NaN : s.sum / s.n;
}

/**
 * Sample variance (n − 1 denominator); NaN under two values. sumSq − sum²/n cancels badly when the
 * spread is tiny next to the mean, and rounding can push it below zero: clamp at 0.
 */
export function summaryVariance(s: MeanSummary): number {
  if (s.n < 2) return Number.NaN;
  return Math.max(0, (s.sumSq - (s.sum * s.sum) / s.n) / (s.n - 1));
}

/** The two samples taken together as one, as they are under "no difference". */
export function combineSummaries(a: MeanSummary, b: MeanSummary): MeanSummary {
  return { n: a.n + b.n, sum: a.sum + b.sum, sumSq: a.sumSq + b.sumSq };
}
