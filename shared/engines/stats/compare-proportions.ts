import { fisherExactTest } from './fisher.ts';
import { twoProportionZTest } from './two-proportion.ts';

export interface ProportionComparison {
  method: 'fisher' | 'z';
  proportionA: number;
  proportionB: number;
  difference: number;
  pValue: number;
}

/**
 * Pass rate of A against B: Fisher's exact test when any expected cell count is under 5 (where the
 * normal approximation is poor), the pooled two-proportion z-test otherwise.
 */
export function compareProportions(passesA: number, totalA: number, passesB: number, totalB: number): ProportionComparison {
  const n = totalA + totalB;
  const passes = passesA + passesB;
  const expected = n === 0 ? [0] : [totalA, totalB].flatMap((t) => [(t * passes) / n, (t * (n - passes)) / n]);
  if (Math.min(...expected) < 5) {
    const f = fisherExactTest(passesA, totalA - passesA, passesB, totalB - passesB);
    const pA = totalA === 0 ? Number.NaN : passesA / totalA;
    const pB = totalB === 0 ? Number.NaN : passesB / totalB;
    return { method: 'fisher', proportionA: pA, proportionB: pB, difference: pA - pB, pValue: f.pValue };
  }
  const z = twoProportionZTest(passesA, totalA, passesB, totalB);
  return { method: 'z', proportionA: z.proportionA, proportionB: z.proportionB, difference: z.difference, pValue: z.pValue };
}
