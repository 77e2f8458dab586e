import type { MeanSummary } from './mean-summary.ts';
import { assertSummary, combineSummaries, summaryMean, summaryVariance } from './mean-summary.ts';
import { mixtureRatio } from './msprt.ts';
import type { AlwaysValidResult, SequentialDecision, SequentialOptions } from './sequential.ts';
import { assertOptions, directionOf, shouldFire } from './sequential.ts';

/** Summaries of a score check on the baseline arm A and the candidate arm B; higher is better. */
export interface MeanArms {
  a: MeanSummary;
  b: MeanSummary;
}

/**
 * Default mixing scale for means, in standard deviations of the scores: τ = 0.5·s, "differences of
 * about half a standard deviation". Scores have no common unit (1–5, 0–100, latency), so a fixed
 * τ would mean different things per check; on the standardised scale the test is unit-free.
 */
export const DEFAULT_MEAN_TAU_SD = 0.5;

/**
 * mSPRT (msprt.ts) on θ = meanA − meanB with the normal approximation of the difference of means.
 *
 * Variance: s²(1/n_A + 1/n_B) with s² the variance of both arms taken together, the analogue of
 * the pooled p̄(1 − p̄) for pass rates: it is the variance under the null being tested, it is
 * never 0 unless every value is the same (then θ̂ = 0 too), and it is stable at small n where
 * s²_A/n_A + s²_B/n_B can collapse when one arm happens to hold a single repeated score. Under a
 * real shift it overstates the variance by about θ²/4, which only slows detection a little.
 *
 * `tau` is in the scores' own units; without it τ = DEFAULT_MEAN_TAU_SD · s. For "lower is better"
 * scores negate the sums (sum → −sum; sumSq unchanged).
 */
export function alwaysValidMeanTest(input: MeanArms & { tau?: number }): AlwaysValidResult {
  const { a, b } = input;
  assertSummary(a);
  assertSummary(b);
  if (a.n === 0 || b.n === 0) return { pValue: 1, lambda: 1, difference: Number.NaN, direction: 'same' };
  const difference = summaryMean(b) - summaryMean(a);
  const all = combineSummaries(a, b);
  const s2 = summaryVariance(all);
  if (!(s2 > 0)) return { pValue: 1, lambda: 1, difference, direction: directionOf(difference) };
  const tau = input.tau ?? DEFAULT_MEAN_TAU_SD * Math.sqrt(s2);
  const { lambda, pValue } = mixtureRatio(-difference, s2 * (1 / a.n + 1 / b.n), tau);
  return { pValue, lambda, difference, direction: directionOf(difference) };
}

/** The regression rule for a score check: fire when B's mean is lower, p ≤ alpha, both arms ≥ minSamples. */
export function sequentialMeanRegression(arms: MeanArms, options: SequentialOptions): SequentialDecision {
  assertOptions(options);
  const result = alwaysValidMeanTest({ ...arms, tau: options.tau });
  return { ...result, fire: shouldFire(result, arms.a.n, arms.b.n, options) };
}
