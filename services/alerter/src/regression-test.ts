import { sequentialRegression } from '../../../shared/engines/stats/index.ts';

// The one place the alerter's regression test lives: shared/engines/stats' sequential test, with the
// alerter's own shape of answer.

/** Pass counts of the baseline (A) and the candidate (B): `ok` scores with a pass/fail verdict. */
export interface RegressionCounts {
  passedA: number;
  totalA: number;
  passedB: number;
  totalB: number;
}

export interface RegressionOptions {
  /** Fire when the always-valid p-value is at most this. */
  alpha: number;
  /** Both sides need at least this many scores. */
  minSamples: number;
  /** Standard deviation of the normal mixing distribution over the difference of pass rates. */
  tau?: number;
}

export interface RegressionVerdict {
  /** The candidate passes significantly less often than the baseline. */
  fire: boolean;
  /** Always-valid p-value, in [0, 1]; 1 when a side has no scores. */
  pValue: number;
  /** A side has fewer than `minSamples` scores: no verdict either way. */
  insufficient: boolean;
  rateA: number;
  rateB: number;
}

/**
 * The always-valid regression test of shared/engines/stats (mSPRT; Johari, Pekelis and Walsh, "Always valid
 * inference", 2017, as in Optimizely's Stats Engine): its p-value stays valid however often it is
 * looked at, so re-running it every minute does not inflate false alarms the way a fixed-sample
 * z-test would. Stateless: it needs only the current counts.
 */
export function regressionVerdict(counts: RegressionCounts, options: RegressionOptions): RegressionVerdict {
  const { totalA, totalB } = counts;
  const rateA = totalA > 0 ? counts.passedA / totalA : Number.NaN;
  const rateB = totalB > 0 ? counts.passedB / totalB : Number.NaN;
  const insufficient = totalA === 0 || totalB === 0 || totalA < options.minSamples || totalB < options.minSamples;
  const d = sequentialRegression(counts, { alpha: options.alpha, minSamples: options.minSamples, ...(options.tau !== undefined ? { tau: options.tau } : {}) });
  return { fire: d.fire, pValue: d.pValue, insufficient, rateA, rateB };
}
