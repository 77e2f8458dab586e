/**
 * The mixture sequential probability ratio test (mSPRT) of Johari, Pekelis and Walsh, "Always
 * valid inference" (2017), the core of Optimizely's Stats Engine, for an estimate θ̂ that is
 * approximately N(θ, V). Against H0: θ = 0 it mixes the alternatives over θ ~ N(0, τ²):
 *
 *   Λ = sqrt(V / (V + τ²)) · exp( θ̂² τ² / (2 V (V + τ²)) )
 *
 * Under H0, Λ evaluated on the growing data is a martingale with mean 1, so by Ville's inequality
 * P(Λ ever ≥ 1/α) ≤ α however often it is looked at: that is what makes p = min(1, 1/Λ) valid
 * under continuous peeking, where a fixed-sample p-value re-computed every minute is not.
 */
export interface MixtureRatio {
  /** The mixture likelihood ratio Λ (may be Infinity when the evidence overflows a double). */
  lambda: number;
  /** Always-valid p-value min(1, 1/Λ). */
  pValue: number;
}

/**
 * Λ and its p-value for an observed difference with variance `variance` and mixing scale `tau`.
 * Computed in log space: at thousands of observations the exponent easily exceeds 709.
 * A zero variance (no spread at all in the data) carries no usable evidence: Λ = 1, p = 1.
 */
export function mixtureRatio(difference: number, variance: number, tau: number): MixtureRatio {
  if (!(tau > 0) || !Number.isFinite(tau)) throw new RangeError(`invalid tau ${tau}`);
  if (!(variance > 0) || !Number.isFinite(variance) || !Number.isFinite(difference)) return { lambda: 1, pValue: 1 };
  const tau2 = tau * tau;
  const logLambda = 0.5 * Math.log(variance / (variance + tau2)) + (difference * difference * tau2) / (2 * variance * (variance + tau2));
  const lambda = Math.exp(logLambda);
  return { lambda, pValue: Math.min(1, Math.exp(-logLambda)) };
}
