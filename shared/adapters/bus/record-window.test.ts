import { describe, expect, it } from 'vitest';
import { RecordWindow } from './record-window.ts';

describe('RecordWindow', () => {
  it('holds a run of offsets, drops from the head exactly, and compacts without losing any', () => {
    const w = new RecordWindow<string>(100);
    expect([w.base, w.end, w.size]).toEqual([100, 100, 0]);
    for (let i = 0; i < 5000; i++) w.push(`r${100 + i}`);
    expect([w.base, w.end, w.size]).toEqual([100, 5100, 5000]);
    w.dropBelow(50);
    expect(w.base).toBe(100);
    // Past half of the array: compacted; the offsets still map to their records.
    for (const to of [1100, 2700, 2701, 4000]) {
      w.dropBelow(to);
      expect([w.base, w.size, w.get(to), w.get(5099)]).toEqual([to, 5100 - to, `r${to}`, 'r5099']);
    }
    w.dropBelow(9999);
    expect([w.base, w.end, w.size]).toEqual([5100, 5100, 0]);
    w.push('r5100');
    expect([w.base, w.end, w.get(5100)]).toEqual([5100, 5101, 'r5100']);
  });
});
