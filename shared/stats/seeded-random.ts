/**
 * Deterministic pseudo-random numbers for the simulation tests: mulberry32 (Tommy Ettinger), a
 * 32-bit generator that is tiny, fast and good enough for Monte Carlo estimates of error rates.
 * Not for anything needing unpredictability.
 */
export type Random = () => number;

export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
