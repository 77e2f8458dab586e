import { describe, expect, it } from 'vitest';
import {
  alwaysValidProportionTest,
  differenceInterval,
  fisherExactTest,
  mannWhitneyFromCounts,
  mannWhitneyU,
  meanDifferenceInterval,
  meanInterval,
  twoProportionZTest,
  wilsonInterval,
} from './index.ts';

// Reference values computed with scipy 1.17.1 and statsmodels 0.15.0; the call is named at each.

describe('published and reference values', () => {
  it('Wilson 19/19 → [0.8318, 1.0000] (statsmodels proportion_confint(19, 19, method="wilson"))', () => {
    const w = wilsonInterval(19, 19);
    expect(w.lower.toFixed(4)).toBe('0.8318');
    expect(w.upper.toFixed(4)).toBe('1.0000');
  });

  it('Fisher [[8,2],[1,5]] (scipy.stats.fisher_exact, two-sided and greater)', () => {
    const r = fisherExactTest(8, 2, 1, 5);
    expect(r.pValue).toBeCloseTo(0.034965034965034975, 12);
    expect(r.pGreater).toBeCloseTo(0.024475524475524483, 12);
    expect(r.pLess).toBeCloseTo(0.9991258741258742, 12);
  });

  it('two-proportion z 83/100 vs 70/100 (scipy.stats.chi2_contingency(correction=False): chi2 = z²)', () => {
    const r = twoProportionZTest(83, 100, 70, 100);
    expect(r.z * r.z).toBeCloseTo(4.700319844249757, 10);
    expect(r.pValue).toBeCloseTo(0.030157004779830982, 10);
  });

  it('Mann-Whitney with ties: normal approximation with tie and continuity corrections', () => {
    // scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='asymptotic', use_continuity=True)
    const x = [5, 4, 4, 3, 5, 2, 4, 5, 3, 4, 5, 1];
    const y = [3, 2, 4, 3, 1, 2, 3, 4, 2, 3];
    const r = mannWhitneyU(x, y);
    expect(r.method).toBe('normal');
    expect(r.u).toBe(91);
    expect(r.pValue).toBeCloseTo(0.03893627138162869, 12);
  });

  it('Mann-Whitney without ties, small samples: exact distribution', () => {
    // scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='exact')
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.07, 3.14, 1.28];
    const r = mannWhitneyU(x, y);
    expect(r.method).toBe('exact');
    expect(r.u).toBe(58);
    expect(r.pValue).toBeCloseTo(0.13591114767585355, 12);
    const counts = (v: number[]): { value: number; count: number }[] => v.map((value) => ({ value, count: 1 }));
    expect(mannWhitneyFromCounts(counts(x), counts(y))).toEqual(r);
  });

  it('Newcombe 1998 worked example: 56/70 − 48/80 → [0.0524, 0.3339]', () => {
    // Checked independently: statsmodels confint_proportions_2indep(56, 70, 48, 80, method='newcomb')
    // gives [0.05243147, 0.33387265] with z = 1.959964; by hand from the two Wilson intervals with
    // z = 1.96 it is [0.05242871, 0.33387493].
    const d = differenceInterval(48, 80, 56, 70);
    expect(d.difference).toBeCloseTo(0.2, 14);
    expect(d.lower.toFixed(4)).toBe('0.0524');
    expect(d.upper.toFixed(4)).toBe('0.3339');
    expect(d.lower).toBeCloseTo(0.05242871341466787, 12);
    expect(d.upper).toBeCloseTo(0.3338749349471928, 12);
    // B − A: swapping the arms mirrors the interval.
    const m = differenceInterval(56, 70, 48, 80);
    expect(m.lower).toBeCloseTo(-0.3338749349471928, 12);
    expect(m.upper).toBeCloseTo(-0.05242871341466787, 12);
  });

  it('Newcombe stays inside [−1, 1] at the boundary (0/20 vs 10/10)', () => {
    // By hand from the Wilson intervals: [0.67907717, 1].
    const d = differenceInterval(0, 20, 10, 10);
    expect(d.lower).toBeCloseTo(0.6790771703025555, 12);
    expect(d.upper).toBeCloseTo(1, 12);
    expect(differenceInterval(0, 0, 3, 4)).toMatchObject({ lower: -1, upper: 1 });
  });

  it('mean interval from (n, sum, sumSq): 1,2,2,3,3,3,4,4,4,4,5,5,5,5,5', () => {
    // numpy: mean 11/3, scipy.stats.sem = 1/3, so 11/3 ± 1.96/3.
    const m = meanInterval(15, 55, 225);
    expect(m.mean).toBeCloseTo(11 / 3, 14);
    expect(m.low).toBeCloseTo(11 / 3 - 1.96 / 3, 12);
    expect(m.high).toBeCloseTo(11 / 3 + 1.96 / 3, 12);
    expect(meanInterval(1, 4, 16)).toMatchObject({ mean: 4, low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY });
    expect(Number.isNaN(meanInterval(0, 0, 0).mean)).toBe(true);
  });

  it('difference of means (Welch standard error): B = 1,1,2,2,3,3,3,4,4,5 vs A above', () => {
    // numpy: B − A = −0.8667, se = sqrt(var(A, ddof=1)/15 + var(B, ddof=1)/10) = 0.5333 → [−1.912, 0.17867].
    const d = meanDifferenceInterval({ n: 15, sum: 55, sumSq: 225 }, { n: 10, sum: 28, sumSq: 94 });
    expect(d.difference).toBeCloseTo(-0.8666666666666667, 12);
    expect(d.lower).toBeCloseTo(-1.912, 12);
    expect(d.upper).toBeCloseTo(0.17866666666666653, 12);
  });

  it('mSPRT Λ for 80/100 vs 60/100 with τ = 0.1 equals the integral of the likelihood ratio over N(0, τ²)', () => {
    // Closed form in numpy: 15.554894345679127; scipy.integrate.quad of
    // norm.pdf(θ̂, t, √V)·norm.pdf(t, 0, τ) / norm.pdf(θ̂, 0, √V) over t: 15.554894345679115.
    const r = alwaysValidProportionTest({ passedA: 80, totalA: 100, passedB: 60, totalB: 100, tau: 0.1 });
    expect(r.lambda).toBeCloseTo(15.554894345679127, 10);
    expect(r.pValue).toBeCloseTo(0.06428844695288992, 12);
    expect(r.difference).toBeCloseTo(-0.2, 14);
    expect(r.direction).toBe('worse');
  });
});
