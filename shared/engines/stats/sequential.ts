import { mixtureRatio } from './msprt.ts';
import { assertCounts } from './wilson.ts';

/** Pass counts of the baseline arm A and the candidate arm B. */
export interface ProportionCounts {
  passedA: number;
  totalA: number;
  passedB: number;
  totalB: number;
}

export type Direction = 'worse' | 'better' | 'same';

export interface AlwaysValidResult {
  /** Always-valid p-value min(1, 1/Λ): valid however often it is re-evaluated on growing data. */
  pValue: number;
  /** The mixture likelihood ratio Λ. */
  lambda: number;
  /** B − A (rate or mean); negative when B is worse. NaN while an arm is empty. */
  difference: number;
  direction: Direction;
}

export interface SequentialOptions {
  /** Probability, over the whole life of the rule, of ever alerting when A and B do not differ. */
  alpha: number;
  /** Both arms need at least this many observations before the rule may fire. */
  minSamples: number;
  /** Mixing scale; defaults per test. */
  tau?: number;
}

export interface SequentialDecision extends AlwaysValidResult {
  fire: boolean;
}

/**
 * Default mixing scale for pass rates: 0.1, i.e. "differences of about 10 points of pass rate are
 * what we look for". Λ grows fastest for true differences near τ; smaller τ is slower on big drops,
 * larger τ pays more at the start for every difference. 0.1 catches a 95% → 70% drop within 200
 * samples per arm in every one of 1,000 simulated streams while 5% → 7% failure at 400 per arm stays
 * quiet (sequential.test.ts). The A/A false-alarm guarantee does not depend on τ.
 */
export const DEFAULT_PROPORTION_TAU = 0.1;

/**
 * mSPRT (msprt.ts) on θ = rateA − rateB from the current counts; stateless, so callers wanting the
 * classic running p-value keep min over time of pValue themselves.
 *
 * Variance: the pooled p̄(1 − p̄)(1/n_A + 1/n_B), the variance of θ̂ under the null being tested.
 * The unpooled pA(1−pA)/n_A + pB(1−pB)/n_B collapses towards 0 whenever an arm happens to have no
 * failures yet — at a 95% pass rate that is common at 30 samples — and then a single failure in the
 * other arm reads as overwhelming evidence; the pooled one cannot do that. p̄ ∈ {0, 1} means both
 * arms agree completely: Λ = 1, p = 1.
 */
export function alwaysValidProportionTest(input: ProportionCounts & { tau?: number }): AlwaysValidResult {
  const { passedA, totalA, passedB, totalB, tau = DEFAULT_PROPORTION_TAU } = input;
  assertCounts(passedA, totalA);
  assertCounts(passedB, totalB);
  if (totalA === 0 || totalB === 0) return { pValue: 1, lambda: 1, difference: Number.NaN, direction: 'same' };
  const rateA = passedA / totalA;
  const rateB = passedB / totalB;
  const pooled = (passedA + passedB) / (totalA + totalB);
  const variance = pooled * (1 - pooled) * (1 / totalA + 1 / totalB);
  const { lambda, pValue } = mixtureRatio(rateA - rateB, variance, tau);
  const difference = rateB - rateA;
  return { pValue, lambda, difference, direction: directionOf(difference) };
}

/**
 * The regression rule: fire only when B's pass rate is below A's, the always-valid p is at most
 * alpha, and both arms have minSamples. The mixture is two-sided, so firing on one side only keeps
 * the A/A false-alarm rate near alpha / 2 in theory; the normal approximation on small counts is
 * what the simulations in sequential.test.ts check (0.4–1.0% of streams at alpha = 0.05).
 */
export function sequentialRegression(counts: ProportionCounts, options: SequentialOptions): SequentialDecision {
  assertOptions(options);
  const result = alwaysValidProportionTest({ ...counts, tau: options.tau });
  return { ...result, fire: shouldFire(result, counts.totalA, counts.totalB, options) };
}

export function directionOf(difference: number): Direction {
  if (difference < 0) return 'worse';
  if (difference > 0) return 'better';
  return 'same';
}

export function shouldFire(result: AlwaysValidResult, nA: number, nB: number, options: SequentialOptions): boolean {
  return result.direction === 'worse' && result.pValue <= options.alpha && nA >= options.minSamples && nB >= options.minSamples;
}

export function assertOptions(options: SequentialOptions): void {
  if (!(options.alpha > 0 && options.alpha < 1)) throw new RangeError(`invalid alpha ${options.alpha}`);
  if (!Number.isInteger(options.minSamples) || options.minSamples < 0) throw new RangeError(`invalid minSamples ${options.minSamples}`);
}
