import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createHeldRecords } from './held-records.ts';
import { createSessionBuffer } from './session-buffer.ts';
import { createSpillStore } from './spill-store.ts';

const made = new Map<string, ReturnType<typeof createTestUnit>>();
/** The same object for the same arguments (the factory stamps the current time). */
function unitOf(i: number, conversation: string) {
  const key = `${i}/${conversation}`;
  if (!made.has(key)) made.set(key, createTestUnit(i, { unit_id: `t${i}`, trace_ids: [`t${i}`], conversation_id: conversation }));
  return made.get(key)!;
}

describe('session buffer', () => {
  it('holds the commit at the first record of the oldest open session, which moves as sessions close and re-open', () => {
    const buf = createSessionBuffer({ idleMs: 100 });
    buf.add(unitOf(1, 'a'), 0, 10n, 0);
    buf.add(unitOf(2, 'b'), 0, 11n, 50);
    buf.add(unitOf(3, 'a'), 0, 12n, 60);
    buf.add(unitOf(4, 'c'), 1, 5n, 60);
    expect([buf.lowWaterMark(0), buf.lowWaterMark(1), buf.lowWaterMark(2)]).toEqual([10n, 5n, null]);
    // b is idle first: a (still open) holds partition 0 at 10.
    const [b] = buf.takeReady(150);
    expect([b.conversationId, b.traces.map((u) => u.unit_id)]).toEqual(['b', ['t2']]);
    buf.confirm(b.key, unitOf(2, 'b'));
    expect(buf.lowWaterMark(0)).toBe(10n);
    const ready = buf.takeReady(160);
    expect(ready.map((s) => [s.conversationId, s.traces.map((u) => u.unit_id)])).toEqual([
      ['a', ['t1', 't3']],
      ['c', ['t4']],
    ]);
    for (const s of ready) buf.confirm(s.key, unitOf(0, s.conversationId));
    expect([buf.lowWaterMark(0), buf.lowWaterMark(1)]).toEqual([null, null]);
    // A later trace of a re-opens it: the mark is its record, and the session published before comes back whole.
    buf.add(unitOf(5, 'a'), 0, 20n, 200);
    expect(buf.lowWaterMark(0)).toBe(20n);
    const [again] = buf.takeReady(300);
    expect(again.previous).toEqual(unitOf(0, 'a'));
    expect(again.traces).toEqual([unitOf(5, 'a')]);
  });

  it('spills the units it holds: one that cannot be written is refused (retriable) with the session unchanged, and a published session keeps only its unit', () => {
    const parent = mkdtempSync(join(tmpdir(), 'session-spill-'));
    try {
      const store = createSpillStore({ dir: parent, segmentBytes: 1 });
      const buf = createSessionBuffer({ idleMs: 100, records: createHeldRecords(store) });
      buf.add(unitOf(1, 'd'), 0, 30n, 0);
      // Segment 1 is where the next unit goes: every write to it fails (ENOSPC).
      symlinkSync('/dev/full', join(store.stats().dir, '1.seg'));
      expect(() => buf.add(unitOf(2, 'd'), 0, 31n, 10)).toThrow(expect.objectContaining({ retriable: true }));
      expect(store.stats().records).toBe(1);
      buf.add(unitOf(2, 'd'), 0, 31n, 20);
      const [s] = buf.takeReady(200);
      expect(s.traces).toEqual([unitOf(1, 'd'), unitOf(2, 'd')]);
      buf.confirm(s.key, unitOf(0, 'd'));
      expect([store.stats().records, readdirSync(store.stats().dir)]).toEqual([1, ['3.seg']]);
      store.close();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
