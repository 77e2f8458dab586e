import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createHeldRecords } from './held-records.ts';
import { runAtOnce } from '../../../shared/runtime/flow/index.ts';
import { createSessionWindow } from './session-window.ts';
import { createSpillStore } from './spill-store.ts';

const made = new Map<string, ReturnType<typeof createTestUnit>>();
/** The same object for the same arguments (the factory stamps the current time). */
function unitOf(i: number, conversation: string) {
  const key = `${i}/${conversation}`;
  if (!made.has(key)) made.set(key, createTestUnit(i, { unit_id: `t${i}`, trace_ids: [`t${i}`], conversation_id: conversation }));
  return made.get(key)!;
}

const at = { partition: 0, offset: 0n };
const record = (unit: ReturnType<typeof unitOf>) => ({ unit, previous: null });
function take(buf: ReturnType<typeof createSessionWindow>, nowMs: number) {
  return buf.takeReady(nowMs, false).map((t) => ({ key: t.key, reason: t.reason, ...runAtOnce(t.load) }));
}

describe('session window', () => {
  it('offers a session once idle or ended, and a later trace re-opens a published one whole', () => {
    const buf = createSessionWindow({ idleMs: 100 });
    expect(buf.add(record(unitOf(1, 'a')), at, 0)).toBe('default\u0000a');
    buf.add(record(unitOf(2, 'b')), at, 50);
    buf.add(record(unitOf(3, 'a')), at, 60);
    buf.add(record({ ...unitOf(4, 'c'), session_end: true }), at, 60);
    // c ended; b is idle first.
    const [b, c] = take(buf, 150);
    expect([c.conversationId, c.reason, b.conversationId, b.reason, b.traces.map((u) => u.unit_id)]).toEqual(['c', 'end-marker', 'b', 'idle', ['t2']]);
    buf.confirm(b.key, 150, unitOf(2, 'b'));
    // Not offered again while taken.
    expect(take(buf, 155)).toEqual([]);
    buf.release(c.key);
    const ready = take(buf, 160);
    expect(ready.map((s) => [s.conversationId, s.traces.map((u) => u.unit_id)])).toEqual([
      ['a', ['t1', 't3']],
      ['c', ['t4']],
    ]);
    for (const s of ready) buf.confirm(s.key, 160, unitOf(0, s.conversationId));
    expect(buf.openCount()).toBe(0);
    expect(buf.isKnown(ready[0].key)).toBe(true);
    // A later trace of a re-opens it: the session published before comes back whole.
    buf.add(record(unitOf(5, 'a')), at, 200);
    const [again] = take(buf, 300);
    expect(again.previous).toEqual(unitOf(0, 'a'));
    expect(again.traces).toEqual([unitOf(5, 'a')]);
  });

  it('publishes a session open maxOpenMs however busy, so it cannot hold the topic for ever, and re-opens it whole at its next trace', () => {
    const buf = createSessionWindow({ idleMs: 100, maxOpenMs: 300 });
    for (let t = 0; t < 300; t += 50) {
      buf.add(record(unitOf(10 + t / 50, 'busy')), at, t);
      expect(take(buf, t)).toEqual([]);
    }
    const [first] = take(buf, 300);
    expect([first.reason, first.traces.map((u) => u.unit_id)]).toEqual(['max-open', ['t10', 't11', 't12', 't13', 't14', 't15']]);
    buf.confirm(first.key, 300, unitOf(0, 'busy'));
    expect(buf.openCount()).toBe(0);
    buf.add(record(unitOf(16, 'busy')), at, 350);
    expect(take(buf, 400)).toEqual([]);
    const [again] = take(buf, 450);
    expect([again.reason, again.previous, again.traces]).toEqual(['idle', unitOf(0, 'busy'), [unitOf(16, 'busy')]]);
  });

  it('spills the units it holds: one that cannot be written is refused (retriable) with the session unchanged, and a published session keeps only its unit', () => {
    const parent = mkdtempSync(join(tmpdir(), 'session-spill-'));
    try {
      const store = createSpillStore({ dir: parent, segmentBytes: 1 });
      const buf = createSessionWindow({ idleMs: 100, records: createHeldRecords(store) });
      buf.add(record(unitOf(1, 'd')), at, 0);
      // Segment 1 is where the next unit goes: every write to it fails (ENOSPC).
      symlinkSync('/dev/full', join(store.stats().dir, '1.seg'));
      expect(() => buf.add(record(unitOf(2, 'd')), at, 10)).toThrow(expect.objectContaining({ retriable: true }));
      expect(store.stats().records).toBe(1);
      buf.add(record(unitOf(2, 'd')), at, 20);
      const [s] = take(buf, 200);
      expect(s.traces).toEqual([unitOf(1, 'd'), unitOf(2, 'd')]);
      buf.confirm(s.key, 200, unitOf(0, 'd'));
      expect([store.stats().records, readdirSync(store.stats().dir)]).toEqual([1, ['3.seg']]);
      store.close();
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
