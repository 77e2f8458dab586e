/** A proportion with its confidence interval, all as fractions in [0, 1]. */
export interface ProportionInterval {
  successes: number;
  total: number;
  /** successes / total; NaN when total is 0. */
  proportion: number;
  lower: number;
  upper: number;
}

/** z for a two-sided 95% interval, the convention reports and tests use. */
export const Z_95 = 1.96;

/**
 * Wilson score interval for `successes` out of `total`. With no observations the interval is the
 * whole of [0, 1]: nothing is known.
 */
export function wilsonInterval(successes: number, total: number, z: number = Z_95): ProportionInterval {
  assertCounts(successes, total);
  if (total === 0) return { successes, total, proportion: Number.NaN, lower: 0, upper: 1 };
  const p = successes / total;
  const z2 = z * z;
  const denom = 1 + z2 / total;
  const centre = p + z2 / (2 * total);
  const half = z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total));
  // Clamp floating-point dust so that 0/n and n/n give exactly 0 and 1 at their ends.
  const lower = successes === 0 ? 0 : Math.max(0, (centre - half) / denom);
  const upper = successes === total ? 1 : Math.min(1, (centre + half) / denom);
  return { successes, total, proportion: p, lower, upper };
}

export function assertCounts(successes: number, total: number): void {
  if (!Number.isInteger(successes) || !Number.isInteger(total) || successes < 0 || total < 0 || successes > total) {
    throw new RangeError(`invalid counts: ${successes} of ${total}`);
  }
}
