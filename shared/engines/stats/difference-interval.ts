import { assertCounts, wilsonInterval, Z_95 } from './wilson.ts';

/** A difference B − A with its confidence interval. */
export interface DifferenceInterval {
  /** B − A; NaN while either side is empty. */
  difference: number;
  lower: number;
  upper: number;
}

/**
 * Confidence interval for rateB − rateA: Newcombe's hybrid score interval (method 10 of Newcombe
 * 1998, "Interval estimation for the difference between independent proportions"), built from the
 * two Wilson intervals. Unlike Wald's p̂ ± z·se it keeps its coverage near 0% and 100% pass rates
 * and never leaves [−1, 1] — pass rates of checks live near 100%, exactly where Wald fails.
 * With an empty side nothing is known: [−1, 1].
 */
export function differenceInterval(passedA: number, totalA: number, passedB: number, totalB: number, z: number = Z_95): DifferenceInterval {
  assertCounts(passedA, totalA);
  assertCounts(passedB, totalB);
  if (totalA === 0 || totalB === 0) return { difference: Number.NaN, lower: -1, upper: 1 };
  const a = wilsonInterval(passedA, totalA, z);
  const b = wilsonInterval(passedB, totalB, z);
  const difference = b.proportion - a.proportion;
  const below = Math.hypot(b.proportion - b.lower, a.upper - a.proportion);
  const above = Math.hypot(b.upper - b.proportion, a.proportion - a.lower);
  return { difference, lower: difference - below, upper: difference + above };
}
