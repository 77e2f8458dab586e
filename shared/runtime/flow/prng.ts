/**
 * Deterministic pseudo-random numbers: mulberry32 (Tommy Ettinger), a 32-bit generator that is
 * tiny, fast and good enough for Monte Carlo estimates, shuffles and replayable choices (a
 * comparison's A/B positions, a crash test's kill points). The same seed gives the same sequence.
 * Not for anything needing unpredictability.
 */
export type Random = () => number;

/** Numbers in [0, 1). */
export function createPrng(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
