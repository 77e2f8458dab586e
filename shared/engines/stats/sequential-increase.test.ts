import { describe, expect, it } from 'vitest';
import type { MeanSummary } from './index.ts';
import { sequentialIncrease } from './index.ts';
import { createPrng, type Random } from '../../runtime/flow/index.ts';

// The alerter's metric_regression situation: latencies of v1 (A) and v2 (B) arrive in batches and
// the rule is re-evaluated after each one. Latencies are log-normal (median 2 s, σ = 0.6 on the log
// scale: a long right tail, as real agent runs have), so the normal approximation is put to a test.
const STREAMS = 1000;
const BATCH = 10;
const MAX_PER_ARM = 500;
const ALPHA = 0.05;
const OPTIONS = { alpha: ALPHA, minSamples: 30 };
const FALSE_ALARM_BOUND = ALPHA + 3 * Math.sqrt((ALPHA * (1 - ALPHA)) / STREAMS);
const MEDIAN_MS = 2_000;
const SIGMA = 0.6;

/** A standard normal draw (Box–Muller). */
function normalDraw(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const latency = (random: Random, scale: number): number => scale * MEDIAN_MS * Math.exp(SIGMA * normalDraw(random));

const empty = (): MeanSummary => ({ n: 0, sum: 0, sumSq: 0 });
const add = (s: MeanSummary, x: number): void => {
  s.n++;
  s.sum += x;
  s.sumSq += x * x;
};

/** Samples per arm at the first fire (B `scale` times A), or null if the rule never fired up to MAX_PER_ARM. */
function firstFire(random: Random, scale: number): number | null {
  const a = empty();
  const b = empty();
  for (let n = BATCH; n <= MAX_PER_ARM; n += BATCH) {
    for (let i = 0; i < BATCH; i++) {
      add(a, latency(random, 1));
      add(b, latency(random, scale));
    }
    if (sequentialIncrease({ a, b }, OPTIONS).fire) return n;
  }
  return null;
}

function simulate(seed: number, scale: number): (number | null)[] {
  const random = createPrng(seed);
  return Array.from({ length: STREAMS }, () => firstFire(random, scale));
}

describe('sequentialIncrease: A/A on log-normal latencies, 50 looks per stream', () => {
  it('ever fires in at most α + 3 se of 1,000 streams', () => {
    const fired = simulate(21, 1).filter((at) => at !== null).length / STREAMS;
    expect(fired).toBeLessThanOrEqual(FALSE_ALARM_BOUND);
    expect(fired).toBe(0.005); // seeded; quoted in docs/alerts.md
  });
});

describe('sequentialIncrease: B at 1.5× A’s latency', () => {
  it('fires in every one of 1,000 streams', () => {
    const at = simulate(22, 1.5).map((n) => n ?? Number.POSITIVE_INFINITY);
    at.sort((x, y) => x - y);
    expect(at[STREAMS - 1]).toBeLessThanOrEqual(MAX_PER_ARM);
    expect({ median: at[STREAMS / 2], max: at[STREAMS - 1] }).toEqual({ median: 60, max: 220 }); // seeded; docs/alerts.md
  });
});

describe('sequentialIncrease on fixed summaries', () => {
  const slow = { n: 40, sum: 40 * 3_000, sumSq: 40 * 3_000 * 3_000 + 39 * 500 * 500 };
  const fast = { n: 40, sum: 40 * 2_000, sumSq: 40 * 2_000 * 2_000 + 39 * 500 * 500 };
  it('higher B fires with a positive difference; lower B or too few samples does not', () => {
    const up = sequentialIncrease({ a: fast, b: slow }, OPTIONS);
    expect(up).toMatchObject({ fire: true, direction: 'worse' });
    expect(up.difference).toBeCloseTo(1_000, 9);
    expect(sequentialIncrease({ a: slow, b: fast }, OPTIONS)).toMatchObject({ fire: false, direction: 'better' });
    expect(sequentialIncrease({ a: fast, b: slow }, { ...OPTIONS, minSamples: 41 }).fire).toBe(false);
    expect(sequentialIncrease({ a: fast, b: fast }, OPTIONS)).toMatchObject({ fire: false, pValue: 1 });
  });
});
