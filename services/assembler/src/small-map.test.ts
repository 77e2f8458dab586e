import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SmallMap } from './small-map.ts';

describe('SmallMap', () => {
  it('holds one entry without a Map and replaces it under the same key', () => {
    const m = new SmallMap<string, number>();
    expect(m.size).toBe(0);
    expect(m.get('a')).toBeUndefined();
    expect([...m.values()]).toEqual([]);
    m.set('a', 1);
    m.set('a', 2);
    expect(m.size).toBe(1);
    expect(m.get('a')).toBe(2);
    expect(m.get('b')).toBeUndefined();
    expect([...m.values()]).toEqual([2]);
  });

  it('behaves as a Map for any sequence of sets, in insertion order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer())), (ops) => {
        const small = new SmallMap<number, number>();
        const real = new Map<number, number>();
        for (const [k, v] of ops) {
          small.set(k, v);
          real.set(k, v);
        }
        expect(small.size).toBe(real.size);
        expect([...small.values()]).toEqual([...real.values()]);
        for (let k = 0; k <= 6; k++) expect(small.get(k)).toBe(real.get(k));
      }),
    );
  });

  it('finds bigint keys by value, as a Map does', () => {
    const m = new SmallMap<bigint, string>();
    m.set(10n, 'x');
    expect(m.get(BigInt(10))).toBe('x');
  });
});
