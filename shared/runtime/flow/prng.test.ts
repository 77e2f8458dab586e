import { describe, expect, it } from 'vitest';
import { createPrng } from './prng.ts';

describe('createPrng', () => {
  it('gives mulberry32 sequence of a seed, the same each time', () => {
    const a = createPrng(1);
    expect([a(), a(), a()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const b = createPrng(1);
    expect([b(), b(), b()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  });

  it('gives another sequence for another seed, every number in [0, 1)', () => {
    const xs = Array.from({ length: 1000 }, createPrng(7));
    expect(xs.slice(0, 3)).not.toEqual(Array.from({ length: 3 }, createPrng(8)));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
