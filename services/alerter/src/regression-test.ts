/**
 * The one place the alerter's regression test lives. When `shared/stats/sequential.ts` lands, this
 * becomes a call to its `sequentialRegression`; until then it is a self-contained mSPRT with the
 * same contract.
 */

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

/** The mixture's spread: differences of about 10 points of pass rate are what we look for. */
export const DEFAULT_TAU = 0.1;

/**
 * Mixture sequential probability ratio test (mSPRT; Johari, Pekelis and Walsh, "Always valid
 * inference", 2017, as in Optimizely's Stats Engine) on the difference of two pass rates with a
 * normal approximation: with θ̂ = rateA − rateB, pooled variance V = p̄(1−p̄)(1/nA + 1/nB) and a
 * N(0, τ²) mixture over θ, Λ = sqrt(V/(V+τ²))·exp(θ̂²τ²/(2V(V+τ²))) and p = min(1, 1/Λ). The
 * p-value is valid however often it is looked at, so re-running it every minute does not inflate
 * false alarms the way a fixed-sample z-test would. Stateless: it needs only the current counts.
 */
export function regressionVerdict(counts: RegressionCounts, options: RegressionOptions): RegressionVerdict {
  const { passedA, totalA, passedB, totalB } = counts;
  const tau = options.tau ?? DEFAULT_TAU;
  const rateA = totalA > 0 ? passedA / totalA : Number.NaN;
  const rateB = totalB > 0 ? passedB / totalB : Number.NaN;
  const insufficient = totalA < options.minSamples || totalB < options.minSamples;
  if (totalA === 0 || totalB === 0) return { fire: false, pValue: 1, insufficient: true, rateA, rateB };
  const pooled = (passedA + passedB) / (totalA + totalB);
  const v = pooled * (1 - pooled) * (1 / totalA + 1 / totalB);
  // Every score passed (or every one failed) on both sides: no evidence of any difference.
  if (v <= 0) return { fire: false, pValue: 1, insufficient, rateA, rateB };
  const theta = rateA - rateB;
  const tau2 = tau * tau;
  const logLambda = 0.5 * Math.log(v / (v + tau2)) + (theta * theta * tau2) / (2 * v * (v + tau2));
  const pValue = Math.min(1, Math.exp(-logLambda));
  return { fire: !insufficient && rateB < rateA && pValue <= options.alpha, pValue, insufficient, rateA, rateB };
}
