import { describe, expect, it } from 'vitest';
import { createStoredUnitIds, readIfStored } from './stored-unit-ids.ts';

// Ids as OTel trace ids look: 32 hex digits (deterministic here, so every figure below is exact).
const traceId = (i: number): string => (BigInt(i) * 0x9e3779b97f4a7c15n).toString(16).padStart(32, '0').slice(-32);

describe('StoredUnitIds', () => {
  it('holds every id added, across the filters it adds as it grows', () => {
    const ids = createStoredUnitIds();
    for (let i = 0; i < 300_000; i++) ids.add(traceId(i));
    let missing = 0;
    for (let i = 0; i < 300_000; i++) if (!ids.mayHold(traceId(i))) missing++;
    expect(missing).toBe(0);
    expect(ids.size).toBe(300_000);
  });

  it('rarely holds an id never added (a false positive costs one table scan)', () => {
    const ids = createStoredUnitIds();
    for (let i = 0; i < 300_000; i++) ids.add(traceId(i));
    let falsePositives = 0;
    for (let i = 300_000; i < 400_000; i++) if (ids.mayHold(traceId(i))) falsePositives++;
    // 11 in 100,000 (about 7 in 100,000 for each full filter; two are full, the third a third).
    expect(falsePositives).toBe(11);
    expect(ids.mayHold('session:conv-1')).toBe(false);
  });

  it('holds an id with a lone surrogate as DuckDB stores it (U+FFFD in its place)', () => {
    const ids = createStoredUnitIds();
    ids.add('u-\ud800-x');
    expect(ids.mayHold('u-\ufffd-x')).toBe(true);
    expect(ids.mayHold('u-\ud800-x')).toBe(true);
  });
});

describe('readIfStored', () => {
  it('reads nothing for a batch of ids never stored', async () => {
    const ids = createStoredUnitIds();
    for (let i = 0; i < 1_000; i++) ids.add(traceId(i));
    const asked: string[][] = [];
    const out = await readIfStored(ids, Array.from({ length: 500 }, (_, i) => traceId(10_000 + i)), (maybe) => (asked.push(maybe), Promise.resolve(['read'])), []);
    expect(asked).toEqual([]);
    expect(out).toEqual([]);
  });

  it('reads the stored ids of a batch, once, and only those', async () => {
    const ids = createStoredUnitIds();
    for (let i = 0; i < 1_000; i++) ids.add(traceId(i));
    const asked: string[][] = [];
    const batch = [traceId(5), traceId(20_000), traceId(7), traceId(20_001)];
    const out = await readIfStored(ids, batch, (maybe) => (asked.push(maybe), Promise.resolve(maybe.length)), 0);
    expect(asked).toEqual([[traceId(5), traceId(7)]]);
    expect(out).toBe(2);
  });
});
