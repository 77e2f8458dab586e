import { describe, expect, it } from 'vitest';
import { averageRanks, binaryAgreement, cohenKappa2x2, interRaterAgreement, scoreAgreement, spearman, type VerdictPair } from './agreement.ts';

const pairs = (n: number, check: boolean, human: boolean): VerdictPair[] => Array.from({ length: n }, () => ({ check, human }));

describe('binaryAgreement', () => {
  it('30 failures of a check, people confirm 25: 25/30, Wilson 95%, kappa 0, precision 25/30, recall 1', () => {
    const a = binaryAgreement([...pairs(25, false, false), ...pairs(5, false, true)]);
    expect(a.confusion).toEqual({ fail_fail: 25, fail_pass: 5, pass_fail: 0, pass_pass: 0 });
    expect(a.agreement.successes).toBe(25);
    expect(a.agreement.total).toBe(30);
    expect(a.agreement.lower.toFixed(4)).toBe('0.6644');
    expect(a.agreement.upper.toFixed(4)).toBe('0.9266');
    // Every verdict of the check was "fail": chance agreement equals observed agreement.
    expect(a.kappa).toBe(0);
    expect(a.fail_precision).toBe(25 / 30);
    expect(a.fail_recall).toBe(1);
  });

  it("a mixed table: kappa by hand", () => {
    // ff=20 fp=5 pf=10 pp=15; n=50; po=0.7; pe=(25*30+25*20)/2500=0.5; kappa=0.4.
    const a = binaryAgreement([...pairs(20, false, false), ...pairs(5, false, true), ...pairs(10, true, false), ...pairs(15, true, true)]);
    expect(a.kappa).toBeCloseTo(0.4, 12);
    expect(a.fail_precision).toBe(0.8);
    expect(a.fail_recall).toBe(20 / 30);
    expect(a.agreement.proportion).toBe(0.7);
  });

  it('nothing reviewed: nothing known', () => {
    const a = binaryAgreement([]);
    expect(a.kappa).toBeNull();
    expect(a.fail_precision).toBeNull();
    expect(a.fail_recall).toBeNull();
    expect(a.agreement).toMatchObject({ total: 0, lower: 0, upper: 1 });
  });

  it('perfect agreement on a single category has no kappa', () => {
    expect(cohenKappa2x2(10, 0, 0, 0)).toBeNull();
    expect(cohenKappa2x2(5, 0, 0, 5)).toBe(1);
  });
});

describe('score agreement', () => {
  it('average ranks share ties', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });

  it('mean absolute difference and Spearman with ties', () => {
    const s = scoreAgreement([
      { check: 1, human: 2 },
      { check: 2, human: 2 },
      { check: 3, human: 4 },
      { check: 4, human: 3 },
    ]);
    expect(s.mean_abs_diff).toBe(0.75);
    // Ranks x: 1,2,3,4; y: 1.5,1.5,4,3 → Pearson = 3.5 / sqrt(5 * 4.5).
    expect(s.spearman).toBeCloseTo(3.5 / Math.sqrt(22.5), 12);
    expect(spearman([1, 2, 3], [3, 2, 1])).toBe(-1);
    expect(spearman([1, 1], [1, 2])).toBeNull();
  });
});

describe('interRaterAgreement', () => {
  it('two reviewers on 30 units, 28 alike: Cohen and Fleiss by hand', () => {
    const ratings = new Map<string, Map<string, string>>();
    for (let i = 0; i < 30; i++) {
      const a = i < 25 ? 'fail' : 'pass';
      const b = i < 25 || i >= 28 ? 'fail' : 'pass';
      ratings.set(`u${i}`, new Map([['ann', a], ['bob', b]]));
    }
    ratings.set('solo', new Map([['ann', 'pass']]));
    const r = interRaterAgreement(ratings);
    expect(r.items).toBe(30);
    expect(r.pairs).toBe(30);
    expect(r.agreeing_pairs).toBe(28);
    expect(r.pairwise_agreement).toBe(28 / 30);
    // po = 28/30; pe = (25*27 + 5*3)/900 = 690/900; kappa = 150/210.
    expect(r.cohen_kappa).toBeCloseTo(5 / 7, 12);
    // Fleiss: p_fail = 52/60, p_pass = 8/60, pe = (2704 + 64)/3600; P̄ = 28/30.
    expect(r.fleiss_kappa).toBeCloseTo((28 / 30 - 2768 / 3600) / (1 - 2768 / 3600), 12);
    expect(r.raters).toBe(2);
  });

  it('three raters: Fleiss, no Cohen', () => {
    const r = interRaterAgreement(
      new Map([
        ['a', new Map([['x', 'pass'], ['y', 'pass'], ['z', 'fail']])],
        ['b', new Map([['x', 'fail'], ['y', 'fail'], ['z', 'fail']])],
      ]),
    );
    expect(r.pairs).toBe(6);
    expect(r.agreeing_pairs).toBe(4);
    expect(r.cohen_kappa).toBeNull();
    // P̄ = (1/3 + 1)/2 = 2/3; p_pass = 2/6, p_fail = 4/6, pe = 5/9; kappa = (2/3 - 5/9)/(4/9) = 1/4.
    expect(r.fleiss_kappa).toBeCloseTo(0.25, 12);
  });
});
