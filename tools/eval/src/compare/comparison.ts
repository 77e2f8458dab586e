import type { PreferenceStats, ProportionInterval } from '../../../../shared/engines/stats/index.ts';
import { binomialTestTwoSided, preferenceStats, wilsonInterval } from '../../../../shared/engines/stats/index.ts';

export interface ComparisonItem {
  id: string;
  input: string | null;
  /** Which variant the judge saw in the first position (A). */
  first: 'a' | 'b' | null;
  /** The variant preferred; null for a tie. Undefined when the judge's answer was unusable. */
  preferred?: 'a' | 'b' | null;
  judgeAnswer?: string;
  error?: string;
}

interface PositionBias {
  /** Decided verdicts whose positions are known. */
  decided: number;
  firstWon: number;
  interval: ProportionInterval;
  /** Exact two-sided binomial test of firstWon out of decided against 1/2. */
  pValue: number;
}

export interface ComparisonResult {
  labelA: string;
  labelB: string;
  seed: number | null;
  judgeModel: string | null;
  items: ComparisonItem[];
  errors: number;
  stats: PreferenceStats;
  positionBias: PositionBias | null;
}

/** Statistics over the items that have a verdict; unusable answers are counted, never guessed. */
export function summarizeComparison(base: Omit<ComparisonResult, 'errors' | 'stats' | 'positionBias'>): ComparisonResult {
  const judged = base.items.filter((i) => i.preferred !== undefined);
  const counts = {
    a: judged.filter((i) => i.preferred === 'a').length,
    b: judged.filter((i) => i.preferred === 'b').length,
    ties: judged.filter((i) => i.preferred === null).length,
  };
  const positioned = judged.filter((i) => i.preferred !== null && i.first !== null);
  const firstWon = positioned.filter((i) => i.preferred === i.first).length;
  return {
    ...base,
    errors: base.items.length - judged.length,
    stats: preferenceStats(counts),
    positionBias:
      positioned.length === 0 && base.items.every((i) => i.first === null)
        ? null
        : { decided: positioned.length, firstWon, interval: wilsonInterval(firstWon, positioned.length), pValue: binomialTestTwoSided(firstWon, positioned.length) },
  };
}
