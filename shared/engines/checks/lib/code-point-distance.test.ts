import { describe, expect, it } from 'vitest';
import { codePointDistance, codePointLength } from './code-point-distance.ts';

describe('codePointDistance', () => {
  it('counts code points as Python does: an emoji is one edit (UTF-16 counted two)', () => {
    expect(codePointDistance('kitten', 'sitting')).toBe(3);
    expect(codePointDistance('hi 😀', 'hi')).toBe(2);
    expect(codePointDistance('😀', '😃')).toBe(1);
    expect(codePointDistance('', '𝄞𝄞')).toBe(2);
    expect(codePointLength('naïve ☕😀')).toBe(8);
  });

  it('gives the same answer as the plain dynamic programme when every distinct code point cannot be renamed', () => {
    expect(codePointDistance('kitten 😀', 'sitting 😃', 2)).toBe(codePointDistance('kitten 😀', 'sitting 😃'));
    expect(codePointDistance('kitten 😀', 'sitting 😃', 2)).toBe(4);
  });
});
