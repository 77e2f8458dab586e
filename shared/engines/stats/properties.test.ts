import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fisherExactTest } from './fisher.ts';
import { wilsonInterval } from './wilson.ts';

// Properties every caller relies on, over counts a monitor can see (bounded runs keep CI fast).
const counts = fc.integer({ min: 0, max: 5_000 }).chain((total) =>
  fc.tuple(fc.integer({ min: 0, max: total }), fc.constant(total)),
);

describe('statistics properties', () => {
  it('a Wilson interval lies in [0, 1] and contains the observed proportion', () => {
    fc.assert(
      fc.property(counts, ([successes, total]) => {
        const r = wilsonInterval(successes, total);
        expect(r.lower).toBeGreaterThanOrEqual(0);
        expect(r.upper).toBeLessThanOrEqual(1);
        if (total > 0) {
          expect(r.lower).toBeLessThanOrEqual(r.proportion);
          expect(r.upper).toBeGreaterThanOrEqual(r.proportion);
        }
      }),
      { numRuns: 500, seed: 42 },
    );
  });

  it("Fisher's p-values are probabilities and the two-sided p is symmetric in the groups", () => {
    fc.assert(
      fc.property(counts, counts, ([a, n1], [c, n2]) => {
        const r = fisherExactTest(a, n1 - a, c, n2 - c);
        for (const p of [r.pValue, r.pLess, r.pGreater]) {
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1 + 1e-9);
        }
        expect(fisherExactTest(c, n2 - c, a, n1 - a).pValue).toBeCloseTo(r.pValue, 9);
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
