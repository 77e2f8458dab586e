import { describe, expect, it } from 'vitest';
import {
  binomialPmf,
  binomialTestTwoSided,
  compareProportions,
  fisherExactTest,
  mannWhitneyU,
  normalCdf,
  preferenceStats,
  twoProportionZTest,
  wilsonInterval,
} from './index.ts';

const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;

describe('preference statistics: the issue seeds', () => {
  it('19 for A, 0 for B, 1 tie', () => {
    const s = preferenceStats({ a: 19, b: 0, ties: 1 });
    expect(pct(s.shareA)).toBe('95.00%');
    expect(pct(s.shareB)).toBe('0.00%');
    expect(pct(s.shareTie)).toBe('5.00%');
    expect(pct(s.intervalA.lower)).toBe('83.18%');
    expect(pct(s.intervalA.upper)).toBe('100.00%');
    expect(pct(s.intervalB.lower)).toBe('0.00%');
    expect(pct(s.intervalB.upper)).toBe('16.82%');
    expect(s.pValue).toBe(2 * 0.5 ** 19);
    expect(s.pValue.toExponential(1)).toBe('3.8e-6');
    expect(`${(s.pValue * 100).toFixed(5)}%`).toBe('0.00038%');
  });

  it('no verdicts: the interval is (0, 0), as the pairwise reference gives', () => {
    const s = preferenceStats({ a: 0, b: 0, ties: 0 });
    expect(s.intervalA).toMatchObject({ lower: 0, upper: 0 });
    expect(s.intervalB).toMatchObject({ lower: 0, upper: 0 });
    expect(s.pValue).toBe(1);
    expect(Number.isNaN(s.shareA)).toBe(true);
  });

  it('only ties: no decided verdict, the interval (0, 0), each tie a share of 100%', () => {
    const s = preferenceStats({ a: 0, b: 0, ties: 3 });
    expect(s).toMatchObject({ shareA: 0, shareB: 0, shareTie: 1, intervalA: { lower: 0, upper: 0 }, intervalB: { lower: 0, upper: 0 }, pValue: 1 });
  });
});

describe('wilsonInterval', () => {
  it('matches published values', () => {
    // 81 of 263 (Newcombe 1998, example): 0.2553 – 0.3662.
    const w = wilsonInterval(81, 263);
    expect(w.lower).toBeCloseTo(0.2553, 4);
    expect(w.upper).toBeCloseTo(0.3662, 4);
    // 15 of 148 (Newcombe 1998): 0.0624 – 0.1605.
    const v = wilsonInterval(15, 148);
    expect(v.lower).toBeCloseTo(0.0624, 4);
    expect(v.upper).toBeCloseTo(0.1605, 4);
  });

  it('0 of n and n of n end exactly at 0 and 1', () => {
    expect(wilsonInterval(0, 10).lower).toBe(0);
    expect(wilsonInterval(10, 10).upper).toBe(1);
    expect(wilsonInterval(5, 10).lower).toBeCloseTo(0.2366, 4);
    expect(wilsonInterval(5, 10).upper).toBeCloseTo(0.7634, 4);
  });

  it('rejects impossible counts', () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
  });
});

describe('binomial', () => {
  it('pmf', () => {
    expect(binomialPmf(3, 10, 0.5)).toBeCloseTo(120 / 1024, 14);
    expect(binomialPmf(0, 5, 0)).toBe(1);
  });

  it('exact two-sided test (R binom.test)', () => {
    expect(binomialTestTwoSided(19, 19)).toBeCloseTo(3.814697e-6, 11);
    expect(binomialTestTwoSided(7, 10)).toBeCloseTo(0.34375, 12);
    expect(binomialTestTwoSided(5, 10)).toBe(1);
    // binom.test(682, 925, p = 0.75): p = 0.3825 (R documentation example).
    expect(binomialTestTwoSided(682, 925, 0.75)).toBeCloseTo(0.3825, 4);
    expect(binomialTestTwoSided(0, 0)).toBe(1);
  });
});

describe('normalCdf', () => {
  it('known values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 15);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 13);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 13);
    expect(normalCdf(-8) / 6.22096057427178e-16).toBeCloseTo(1, 7);
  });
});

describe('twoProportionZTest', () => {
  it('45/100 vs 30/100: chi-square 4.8, p = 0.02846 (R prop.test, correct = FALSE)', () => {
    const r = twoProportionZTest(45, 100, 30, 100);
    expect(r.z * r.z).toBeCloseTo(4.8, 10);
    expect(r.pValue).toBeCloseTo(0.02846, 5);
  });

  it('degenerate tables give no evidence', () => {
    expect(twoProportionZTest(10, 10, 5, 5).pValue).toBe(1);
    expect(twoProportionZTest(0, 0, 5, 5).pValue).toBe(1);
  });
});

describe('fisherExactTest', () => {
  it('lady tasting tea [[3,1],[1,3]]: two-sided 0.4857, greater 0.2429', () => {
    const r = fisherExactTest(3, 1, 1, 3);
    expect(r.pValue).toBeCloseTo(0.4857143, 7);
    expect(r.pGreater).toBeCloseTo(0.2428571, 7);
  });

  it('[[10,0],[0,10]]: p = 1.083e-5', () => {
    expect(fisherExactTest(10, 0, 0, 10).pValue).toBeCloseTo(2 / 184756, 12);
  });
});

describe('mannWhitneyU', () => {
  it('Hollander & Wolfe depression data (R wilcox.test): W = 35, two-sided p = 0.2544', () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const r = mannWhitneyU(x, y);
    expect(r.u).toBe(35);
    expect(r.method).toBe('exact');
    expect(r.pValue).toBeCloseTo(0.2544, 4);
  });

  it('complete separation of 3 vs 3: exact p = 2/20', () => {
    expect(mannWhitneyU([4, 5, 6], [1, 2, 3]).pValue).toBeCloseTo(0.1, 12);
  });

  it('ties use the normal approximation with tie and continuity corrections', () => {
    // Three 2s and three 3s: tie term (27 - 3) · 2 = 48.
    const r = mannWhitneyU([1, 2, 2, 3, 4], [2, 3, 3, 5, 6]);
    expect(r.method).toBe('normal');
    expect(r.u).toBe(6);
    const sigma = Math.sqrt((25 / 12) * (11 - 48 / 90));
    expect(r.pValue).toBeCloseTo(2 * normalCdf((6 - 12.5 + 0.5) / sigma), 12);
  });
});

describe('compareProportions', () => {
  it('small counts use Fisher, large counts the z-test', () => {
    expect(compareProportions(3, 4, 1, 4).method).toBe('fisher');
    expect(compareProportions(45, 100, 30, 100)).toMatchObject({ method: 'z' });
  });
});
