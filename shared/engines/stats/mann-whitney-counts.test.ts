import { describe, expect, it } from 'vitest';
import type { ValueCount } from './index.ts';
import { mannWhitneyFromCounts, mannWhitneyU } from './index.ts';
import { createPrng } from '../../runtime/flow/index.ts';

const expand = (counts: readonly ValueCount[]): number[] => counts.flatMap(({ value, count }) => new Array<number>(count).fill(value));

describe('mannWhitneyFromCounts', () => {
  it('equals mannWhitneyU on the expanded samples (300 seeded random 1–5 score tables)', () => {
    const random = createPrng(20240611);
    const table = (): ValueCount[] => [1, 2, 3, 4, 5].map((value) => ({ value, count: Math.floor(random() * 40) }));
    let compared = 0;
    for (let i = 0; i < 300; i++) {
      const a = table();
      const b = table();
      // toEqual, not toBeCloseTo: same U, same tie term, same arithmetic afterwards.
      expect(mannWhitneyFromCounts(a, b)).toEqual(mannWhitneyU(expand(a), expand(b)));
      compared++;
    }
    expect(compared).toBe(300);
  });

  it('equals mannWhitneyU in the exact (no ties) regime and with unordered, repeated, zero entries', () => {
    const a: ValueCount[] = [{ value: 0.7, count: 1 }, { value: 0.1, count: 1 }, { value: 0.4, count: 1 }];
    const b: ValueCount[] = [{ value: 0.2, count: 1 }, { value: 0.9, count: 1 }, { value: 0.3, count: 0 }, { value: 0.05, count: 1 }];
    expect(mannWhitneyFromCounts(a, b)).toEqual(mannWhitneyU(expand(a), expand(b)));
    expect(mannWhitneyFromCounts(a, b).method).toBe('exact');
    const split: ValueCount[] = [{ value: 3, count: 2 }, { value: 1, count: 1 }, { value: 3, count: 4 }];
    const other: ValueCount[] = [{ value: 2, count: 5 }, { value: 3, count: 1 }];
    expect(mannWhitneyFromCounts(split, other)).toEqual(mannWhitneyU(expand(split), expand(other)));
  });

  it('empty arms and invalid counts', () => {
    expect(mannWhitneyFromCounts([], [{ value: 1, count: 3 }]).pValue).toBe(1);
    expect(() => mannWhitneyFromCounts([{ value: 1, count: -1 }], [])).toThrow(RangeError);
    expect(() => mannWhitneyFromCounts([{ value: 1, count: 1.5 }], [])).toThrow(RangeError);
  });
});
