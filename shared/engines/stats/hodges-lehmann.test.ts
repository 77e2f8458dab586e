import { describe, expect, it } from 'vitest';
import { createPrng } from '../../runtime/flow/index.ts';
import { hodgesLehmannShift } from './hodges-lehmann.ts';
import { mannWhitneyFromCounts, type ValueCount } from './mann-whitney.ts';

const counts = (xs: readonly number[]): ValueCount[] => xs.map((value) => ({ value, count: 1 }));

// Expected values: scipy 1.x (`mannwhitneyu`, `norm.ppf`) and a brute-force Python reference that
// sorts all nA·nB differences and enumerates every rank set for the exact null (see the README).
describe('hodgesLehmannShift', () => {
  it("R's wilcox.test example (Hollander & Wolfe): shift 0.305, exact 96.0% interval [−0.15, 0.76]", () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const r = hodgesLehmannShift(counts(y), counts(x));
    expect(r.method).toBe('exact');
    expect(r.estimate).toBeCloseTo(0.305, 12);
    expect(r.lower).toBeCloseTo(-0.15, 12);
    expect(r.upper).toBeCloseTo(0.76, 12);
    expect(r.confidence).toBeCloseTo(0.9600399600399601, 12);
    // The same samples' rank test (scipy: U = 15 for y, two-sided exact p = 0.2544122544122544).
    const t = mannWhitneyFromCounts(counts(y), counts(x));
    expect(t.u).toBe(15);
    expect(t.pValue).toBeCloseTo(0.2544122544122544, 12);
  });

  it('small samples without ties: exact interval (k = 7 of 42 differences)', () => {
    const r = hodgesLehmannShift(counts([12, 15, 11, 19, 14, 13]), counts([18, 21, 16, 25, 20, 17, 22]));
    expect(r).toEqual({ estimate: 6, lower: 2, upper: 10, confidence: expect.closeTo(0.965034965034965, 12) as number, method: 'exact' });
  });

  it('ties: normal approximation with tie correction (k = 42 of 156 differences)', () => {
    const a = [120, 150, 150, 180, 200, 200, 200, 240, 310, 400, 120, 150];
    const b = [150, 200, 260, 260, 300, 310, 350, 420, 500, 200, 260, 610, 150];
    const r = hodgesLehmannShift(counts(a), counts(b));
    expect(r).toEqual({ estimate: 90, lower: 0, upper: 180, confidence: expect.closeTo(0.9548374584911076, 12) as number, method: 'normal' });
    // scipy mannwhitneyu(a, b, method='asymptotic', use_continuity=True): U = 36.5, p = 0.024442626226211815.
    const t = mannWhitneyFromCounts(counts(a), counts(b));
    expect(t.u).toBe(36.5);
    expect(t.pValue).toBeCloseTo(0.024442626226211815, 10);
  });

  it('equals the sorted list of all differences on 200 seeded random weighted samples', () => {
    const random = createPrng(26);
    for (let i = 0; i < 200; i++) {
      const arm = (): ValueCount[] => Array.from({ length: 1 + Math.floor(random() * 12) }, () => ({ value: Math.round(random() * 50) / 4, count: Math.floor(random() * 5) }));
      const a = arm();
      const b = arm();
      const all = (xs: ValueCount[]): number[] => xs.flatMap(({ value, count }) => new Array<number>(count).fill(value));
      const [xa, xb] = [all(a), all(b)];
      if (xa.length === 0 || xb.length === 0) continue;
      const diffs = xb.flatMap((v) => xa.map((u) => v - u)).sort((p, q) => p - q);
      const n = diffs.length;
      const median = n % 2 === 1 ? diffs[(n - 1) / 2] : (diffs[n / 2 - 1] + diffs[n / 2]) / 2;
      const r = hodgesLehmannShift(a, b);
      expect(r.estimate).toBe(median);
      expect(diffs).toContain(r.lower);
      expect(diffs).toContain(r.upper);
      expect(r.lower).toBeLessThanOrEqual(r.estimate);
      expect(r.upper).toBeGreaterThanOrEqual(r.estimate);
    }
  });

  it('large samples given as counts: 1,889,700 units of 600 distinct values (Python reference over the 90,000 weighted differences)', () => {
    const a: ValueCount[] = Array.from({ length: 300 }, (_, i) => ({ value: 1000 + i * 10, count: 3000 + i }));
    const b: ValueCount[] = Array.from({ length: 300 }, (_, i) => ({ value: 1500 + i * 10, count: 3000 + i }));
    const r = hodgesLehmannShift(a, b);
    expect(r.method).toBe('normal');
    expect(r.estimate).toBe(500);
    // k = 445,635,884,061 of 892,741,522,500 differences; the mass at 500 covers both ends.
    expect(r.lower).toBe(500);
    expect(r.upper).toBe(500);
    expect(r.confidence).toBeCloseTo(0.9500000000553955, 9);
  });

  it('empty sides and invalid input', () => {
    expect(Number.isNaN(hodgesLehmannShift([], counts([1])).estimate)).toBe(true);
    expect(() => hodgesLehmannShift(counts([1]), [{ value: 2, count: -1 }])).toThrow(RangeError);
    expect(() => hodgesLehmannShift(counts([1]), counts([2]), 1)).toThrow(RangeError);
  });
});
