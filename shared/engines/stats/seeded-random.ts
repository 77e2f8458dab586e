/** Draws from a seeded generator (shared/runtime/flow's createPrng) for the simulation tests. */
import type { Random } from '../../runtime/flow/index.ts';

/** Number of successes in `n` Bernoulli(p) draws. */
export function binomialDraw(random: Random, n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < p) k++;
  return k;
}

/** One value drawn from `values` with the given probabilities (summing to 1). */
export function categoricalDraw(random: Random, values: readonly number[], probabilities: readonly number[]): number {
  let u = random();
  for (let i = 0; i < values.length - 1; i++) {
    u -= probabilities[i];
    if (u < 0) return values[i];
  }
  return values[values.length - 1];
}
