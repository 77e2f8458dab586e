import { describe, expect, it } from 'vitest';
import { ReadTimes } from './read-times.ts';

describe('ReadTimes', () => {
  it('keeps one mark per 100 ms of appends and answers the time of the last mark at or below an offset', () => {
    const t = new ReadTimes();
    expect(t.timeOf(0)).toBeUndefined();
    t.mark(0, 1_000);
    t.mark(1, 1_050);
    t.mark(2, 1_100);
    t.mark(3, 1_150);
    t.mark(7, 1_400);
    expect(t.size()).toBe(3);
    expect([0, 1, 2, 3, 6, 7, 100].map((o) => t.timeOf(o))).toEqual([1_000, 1_000, 1_100, 1_100, 1_100, 1_400, 1_400]);
  });

  it('forgets marks below an offset but the last one at or below it', () => {
    const t = new ReadTimes();
    for (let i = 0; i < 3_000; i++) t.mark(i, i * 100);
    t.forgetBelow(2_500);
    expect(t.size()).toBe(500);
    expect(t.timeOf(2_500)).toBe(250_000);
    // Below what is kept, the oldest mark kept: the lag errs high, never low.
    expect(t.timeOf(10)).toBe(250_000);
    t.forgetBelow(5_000);
    expect(t.size()).toBe(1);
    expect(t.timeOf(2_999)).toBe(299_900);
  });
});
