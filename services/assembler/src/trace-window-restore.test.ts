import { describe, expect, it } from 'vitest';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const ROOT = '1'.repeat(16);
const span = (traceId: string, id: string, parent?: string) => createTestSpan({ trace_id: traceId, span_id: id.repeat(16), ...(parent ? { parent_span_id: parent } : {}) });

// After a restart the bus replays the records just below the commit: the traces they make are
// kept as closed (published before the restart), so a late span re-opens one whole.
describe('trace window restore', () => {
  it('keeps replayed traces as published: a late span re-opens one whole, with every span', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    const part1 = [span(A, '2', ROOT), span(A, '3', ROOT), span(A, '1'), span(B, '4')];
    buf.restore(part1, 0, [10n, 11n, 12n, 13n], 100);
    expect([buf.openCount(), buf.closedCount(), buf.takeReady(100, true), buf.lowWaterMark(0)]).toEqual([0, 2, [], null]);

    buf.add(span(A, '5', ROOT), 0, 20n, 200);
    // The commit is held below the replayed records of A, which the re-opened trace carries.
    expect(buf.lowWaterMark(0)).toBe(10n);
    const [unit] = buf.takeReady(200);
    expect([unit.traceId, unit.spans.map((s) => s.span_id)]).toEqual([A, ['2', '3', '1', '5'].map((c) => c.repeat(16))]);
    expect(unit.spans.map((s) => buf.originOf(s)?.offset)).toEqual(['10', '11', '12', '20']);
    buf.confirm(A, 200);
    expect(buf.lowWaterMark(0)).toBeNull();
  });

  it('takes a trace replayed in two chunks whole, and an exact re-send in a chunk once', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    const child = span(A, '2', ROOT);
    buf.restore([child, span(A, '3', ROOT)], 0, [1n, 2n], 100);
    buf.restore([{ ...child, received_at_ms: child.received_at_ms + 50 }, span(A, '1')], 0, [3n, 4n], 100);
    expect(buf.closedCount()).toBe(1);
    buf.add(span(A, '6', ROOT), 0, 9n, 200);
    expect(buf.takeReady(200)[0].spans.map((s) => s.span_id[0])).toEqual(['2', '3', '1', '6']);
  });

  it('leaves an open trace, and one published since the start, as they are', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    buf.add(span(A, '2', ROOT), 0, 30n, 100);
    buf.add(span(B, '1'), 0, 31n, 100);
    const [published] = buf.takeReady(100).filter((t) => t.traceId === B);
    buf.confirm(published.key, 100);
    buf.restore([span(A, '3', ROOT), span(B, '4', ROOT)], 0, [5n, 6n], 150);
    expect([buf.openCount(), buf.closedCount(), buf.lowWaterMark(0)]).toEqual([1, 1, 30n]);
    buf.add(span(A, '1'), 0, 32n, 200);
    buf.add(span(B, '7', ROOT), 0, 33n, 200);
    const units = buf.takeReady(200);
    expect(units.map((u) => [u.traceId, u.spans.map((s) => s.span_id[0])])).toEqual([
      [A, ['2', '1']],
      [B, ['1', '7']],
    ]);
  });

  it('keeps at most maxClosedTraces restored traces, the newest', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000, maxClosedTraces: 2 });
    const ids = ['c', 'd', 'e'].map((c) => c.repeat(32));
    buf.restore(
      ids.map((id) => span(id, '1')),
      0,
      [1n, 2n, 3n],
      100,
    );
    expect(buf.closedCount()).toBe(2);
    // The oldest was dropped as any closed trace is: its late span is a fragment of its own.
    buf.add(span(ids[0], '2', ROOT), 0, 9n, 200);
    buf.add(span(ids[2], '2', ROOT), 0, 10n, 200);
    expect(buf.takeReady(200, true).map((u) => [u.traceId, u.unitId ?? null, u.spans.length])).toEqual([
      [ids[0], `${ids[0]}-late-${'2'.repeat(16)}`, 1],
      [ids[2], null, 2],
    ]);
  });
});
