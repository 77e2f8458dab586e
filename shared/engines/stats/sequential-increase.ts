import type { MeanSummary } from './mean-summary.ts';
import { sequentialMeanRegression } from './sequential-mean.ts';
import type { SequentialDecision, SequentialOptions } from './sequential.ts';

/** Summaries of a metric where higher is worse (latency, cost) on the baseline A and the candidate B. */
export interface IncreaseArms {
  a: MeanSummary;
  b: MeanSummary;
}

/**
 * The regression rule for a "lower is better" metric: fire when B's mean is significantly above
 * A's under continuous monitoring. The same mSPRT on the difference of means as for score checks
 * (sequential-mean.ts: pooled variance from n, Σx and Σx², τ = half a pooled standard deviation),
 * on negated sums so that "worse" means "higher". `difference` is reported as B − A in the metric's
 * own sign (positive when B is slower or costlier).
 */
export function sequentialIncrease(arms: IncreaseArms, options: SequentialOptions): SequentialDecision {
  const neg = (s: MeanSummary): MeanSummary => ({ ...s, sum: -s.sum });
  const d = sequentialMeanRegression({ a: neg(arms.a), b: neg(arms.b) }, options);
  return { ...d, difference: -d.difference };
}
