import { normalTwoSidedP } from './normal.ts';
import { assertCounts } from './wilson.ts';

export interface TwoProportionResult {
  proportionA: number;
  proportionB: number;
  /** proportionA - proportionB. */
  difference: number;
  z: number;
  pValue: number;
}

/**
 * Two-proportion z-test with the pooled standard error (no continuity correction; z² equals the
 * Pearson chi-square of the 2×2 table). When either side has no observations, or the pooled
 * proportion is 0 or 1, there is no evidence of a difference: z = 0, p = 1.
 */
export function twoProportionZTest(successesA: number, totalA: number, successesB: number, totalB: number): TwoProportionResult {
  assertCounts(successesA, totalA);
  assertCounts(successesB, totalB);
  const pA = totalA === 0 ? Number.NaN : successesA / totalA;
  const pB = totalB === 0 ? Number.NaN : successesB / totalB;
  const pooled = (successesA + successesB) / (totalA + totalB);
  if (totalA === 0 || totalB === 0 || pooled === 0 || pooled === 1) {
    return { proportionA: pA, proportionB: pB, difference: pA - pB, z: 0, pValue: 1 };
  }
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / totalA + 1 / totalB));
  const z = (pA - pB) / se;
  return { proportionA: pA, proportionB: pB, difference: pA - pB, z, pValue: normalTwoSidedP(z) };
}
