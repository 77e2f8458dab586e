import { describe, expect, it } from 'vitest';
import type { MeanSummary } from './index.ts';
import { alwaysValidMeanTest, DEFAULT_MEAN_TAU_SD, sequentialMeanRegression } from './index.ts';
import { createPrng, type Random } from '../../runtime/flow/index.ts';
import { categoricalDraw } from './seeded-random.ts';

const STREAMS = 1000;
const BATCH = 10;
const MAX_PER_ARM = 500;
const ALPHA = 0.05;
const OPTIONS = { alpha: ALPHA, minSamples: 30 };
const FALSE_ALARM_BOUND = ALPHA + 3 * Math.sqrt((ALPHA * (1 - ALPHA)) / STREAMS);

// A 1–5 score check (e.g. an LLM judge's rating); probabilities of 1, 2, 3, 4, 5.
const SCORES = [1, 2, 3, 4, 5];
const TYPICAL = [0.05, 0.1, 0.2, 0.35, 0.3]; // mean 3.75
const MOSTLY_FIVES = [0.02, 0.03, 0.05, 0.2, 0.7]; // mean 4.53
const ONE_POINT_LOWER = [0.15, 0.2, 0.35, 0.3, 0]; // TYPICAL shifted down one point, 1 absorbing 0: mean 2.8

const empty = (): MeanSummary => ({ n: 0, sum: 0, sumSq: 0 });
const add = (s: MeanSummary, x: number): void => {
  s.n++;
  s.sum += x;
  s.sumSq += x * x;
};

/** Samples per arm at the first fire, or null if the rule never fired up to MAX_PER_ARM. */
function firstFire(random: Random, probsA: readonly number[], probsB: readonly number[]): number | null {
  const a = empty();
  const b = empty();
  let firedAt: number | null = null;
  for (let n = BATCH; n <= MAX_PER_ARM; n += BATCH) {
    for (let i = 0; i < BATCH; i++) {
      add(a, categoricalDraw(random, SCORES, probsA));
      add(b, categoricalDraw(random, SCORES, probsB));
    }
    if (firedAt === null && sequentialMeanRegression({ a, b }, OPTIONS).fire) firedAt = n;
  }
  return firedAt;
}

function simulate(seed: number, probsA: readonly number[], probsB: readonly number[]): (number | null)[] {
  const random = createPrng(seed);
  return Array.from({ length: STREAMS }, () => firstFire(random, probsA, probsB));
}

describe('sequentialMeanRegression: A/A', () => {
  it.each([
    // [distribution, seed, measured fraction of streams that ever fire]
    ['typical', TYPICAL, 11, 0.007],
    ['mostly fives', MOSTLY_FIVES, 12, 0.004],
  ])('%s 1–5 scores: ever fires in at most α + 3 se of 1,000 streams', (_name, probs, seed, measured) => {
    const fired = simulate(seed, probs, probs).filter((at) => at !== null).length / STREAMS;
    expect(fired).toBeLessThanOrEqual(FALSE_ALARM_BOUND);
    expect(fired).toBe(measured); // seeded; quoted in README.md
  });
});

describe('sequentialMeanRegression: a one-point drop', () => {
  it('fires in every one of 1,000 streams, fast', () => {
    const at = simulate(13, TYPICAL, ONE_POINT_LOWER).map((n) => n ?? Number.POSITIVE_INFINITY);
    at.sort((x, y) => x - y);
    expect(at[STREAMS - 1]).toBeLessThanOrEqual(100);
    expect({ median: at[STREAMS / 2], max: at[STREAMS - 1] }).toEqual({ median: 30, max: 90 }); // seeded; README.md
  });
});

describe('alwaysValidMeanTest on fixed summaries', () => {
  const a = { n: 15, sum: 55, sumSq: 225 }; // 1,2,2,3,3,3,4,4,4,4,5,5,5,5,5
  const b = { n: 10, sum: 28, sumSq: 94 }; // 1,1,2,2,3,3,3,4,4,5

  it('difference is B − A, the default τ is half the combined standard deviation', () => {
    const r = alwaysValidMeanTest({ a, b });
    expect(r.difference).toBeCloseTo(28 / 10 - 55 / 15, 14);
    expect(r.direction).toBe('worse');
    // Combined: n 25, sum 83, sumSq 319 → s² = (319 − 83²/25) / 24.
    const s2 = (319 - (83 * 83) / 25) / 24;
    const v = s2 * (1 / 15 + 1 / 10);
    const tau2 = DEFAULT_MEAN_TAU_SD ** 2 * s2;
    const d = 28 / 10 - 55 / 15;
    const lambda = Math.sqrt(v / (v + tau2)) * Math.exp((d * d * tau2) / (2 * v * (v + tau2)));
    expect(r.lambda).toBeCloseTo(lambda, 12);
    expect(r.pValue).toBeCloseTo(Math.min(1, 1 / lambda), 12);
    expect(alwaysValidMeanTest({ a, b, tau: 0.5 }).lambda).not.toBeCloseTo(lambda, 6);
  });

  it('lower-is-better scores: negating the sums flips the direction', () => {
    const neg = (s: MeanSummary): MeanSummary => ({ ...s, sum: -s.sum });
    const r = alwaysValidMeanTest({ a: neg(a), b: neg(b) });
    expect(r.direction).toBe('better');
    expect(r.lambda).toBeCloseTo(alwaysValidMeanTest({ a, b }).lambda, 12);
  });

  it('no evidence without data or without spread; minSamples and direction gate the rule', () => {
    expect(alwaysValidMeanTest({ a: empty(), b })).toMatchObject({ pValue: 1, lambda: 1, direction: 'same' });
    expect(alwaysValidMeanTest({ a: { n: 40, sum: 160, sumSq: 640 }, b: { n: 30, sum: 120, sumSq: 480 } })).toMatchObject({ pValue: 1, direction: 'same' });
    const drop = { a: { n: 40, sum: 180, sumSq: 820 }, b: { n: 40, sum: 100, sumSq: 300 } }; // means 4.5 vs 2.5
    expect(sequentialMeanRegression(drop, OPTIONS).fire).toBe(true);
    expect(sequentialMeanRegression(drop, { ...OPTIONS, minSamples: 41 }).fire).toBe(false);
    expect(sequentialMeanRegression({ a: drop.b, b: drop.a }, OPTIONS).fire).toBe(false);
    expect(() => alwaysValidMeanTest({ a: { n: 1.5, sum: 0, sumSq: 0 }, b })).toThrow(RangeError);
  });
});
