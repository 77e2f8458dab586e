import { binomialTestTwoSided } from './binomial.ts';
import type { ProportionInterval } from './wilson.ts';
import { wilsonInterval, Z_95 } from './wilson.ts';

export interface PreferenceCounts {
  a: number;
  b: number;
  ties: number;
}

/** Pairwise preference statistics. Shares count ties; intervals and the test exclude them. */
export interface PreferenceStats extends PreferenceCounts {
  total: number;
  /** a / (a + b + ties), NaN with no verdicts. */
  shareA: number;
  shareB: number;
  shareTie: number;
  /** Wilson interval for a / (a + b); (0, 0) when a + b is 0. */
  intervalA: ProportionInterval;
  /** Wilson interval for b / (a + b). */
  intervalB: ProportionInterval;
  /** Exact two-sided binomial test of a out of a + b against 1/2. */
  pValue: number;
}

/** With no decided verdict the interval is (0, 0), as the pairwise reference's `wilson_score_interval` returns. */
const NO_INTERVAL: ProportionInterval = { successes: 0, total: 0, proportion: Number.NaN, lower: 0, upper: 0 };

export function preferenceStats(counts: PreferenceCounts, z: number = Z_95): PreferenceStats {
  const { a, b, ties } = counts;
  const total = a + b + ties;
  const decided = a + b;
  const share = (k: number): number => (total === 0 ? Number.NaN : k / total);
  return {
    a,
    b,
    ties,
    total,
    shareA: share(a),
    shareB: share(b),
    shareTie: share(ties),
    intervalA: decided === 0 ? NO_INTERVAL : wilsonInterval(a, decided, z),
    intervalB: decided === 0 ? NO_INTERVAL : wilsonInterval(b, decided, z),
    pValue: binomialTestTwoSided(a, decided, 0.5),
  };
}
