import { logChoose } from './log-gamma.ts';
import { assertCounts } from './wilson.ts';

/** Binomial probability mass P(X = k) for X ~ Bin(n, p). */
export function binomialPmf(k: number, n: number, p: number): number {
  if (k < 0 || k > n) return 0;
  if (p === 0) return k === 0 ? 1 : 0;
  if (p === 1) return k === n ? 1 : 0;
  return Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

/**
 * Exact two-sided binomial test of `successes` out of `total` against probability `p`: the sum of
 * the probabilities of every outcome no more likely than the observed one (the convention of R's
 * binom.test). For p = 0.5 this is twice the smaller tail, capped at 1.
 * With no observations there is no evidence either way: p-value 1.
 */
export function binomialTestTwoSided(successes: number, total: number, p = 0.5): number {
  assertCounts(successes, total);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`invalid probability ${p}`);
  if (total === 0) return 1;
  const observed = binomialPmf(successes, total, p);
  // Relative tolerance so that outcomes equally likely in exact arithmetic count as "as extreme".
  const limit = observed * (1 + 1e-7);
  let sum = 0;
  for (let k = 0; k <= total; k++) {
    const pk = binomialPmf(k, total, p);
    if (pk <= limit) sum += pk;
  }
  return Math.min(1, sum);
}
