import { describe, expect, it } from 'vitest';
import { assembleTrace } from './assemble-trace.ts';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const ROOT = '1'.repeat(16);

describe('trace window', () => {
  it('closes a complete trace after the short grace, and one with a missing parent after the long one', () => {
    const buf = createTraceWindowHarness({ graceMs: 2_000, completeGraceMs: 200, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    const CHILD = '2'.repeat(16);
    // A: root and child, complete.
    buf.add(createTestSpan({ trace_id: A, span_id: CHILD, parent_span_id: ROOT }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 2n, 10);
    // B: a root, and a grandchild whose parent (CHILD) has not arrived.
    buf.add(createTestSpan({ trace_id: B, span_id: '3'.repeat(16), parent_span_id: CHILD }), 0, 3n, 10);
    buf.add(createTestSpan({ trace_id: B, span_id: ROOT }), 0, 4n, 10);
    expect(buf.takeReady(209)).toEqual([]);
    expect(buf.takeReady(210).map((r) => r.traceId)).toEqual([A]);
    expect(buf.takeReady(2_009)).toEqual([]);
    expect(buf.takeReady(2_010).map((r) => r.traceId)).toEqual([B]);
  });

  it('never holds an evaluation event: one after the unit does not re-open it, one before opens nothing', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    const evaluation = { schema_version: 1, kind: 'log', trace_id: A, span_id: ROOT, event_name: 'gen_ai.evaluation.result', time_unix_nano: '1', sequence: 0, is_output: false, attributes: { 'gen_ai.evaluation.name': 'Relevance' }, received_at_ms: 0 } as const;
    expect(buf.add({ ...evaluation, trace_id: B }, 0, 0n, 0)).toBeNull();
    expect(buf.openCount()).toBe(0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 1n, 0);
    expect(buf.takeReady(1).map((r) => r.traceId)).toEqual([A]);
    buf.confirm(A, 1);
    expect(buf.add(evaluation, 0, 2n, 2)).toBeNull();
    expect([buf.openCount(), buf.takeReady(10)]).toEqual([0, []]);
  });

  it('keeps the low-water mark exact through many traces closing out of order', () => {
    // Every trace's records are at 2i and (1000 or 2000)+i: published, trace 0 spans every other
    // trace's first record, so the mark stays at 0 until no trace is open; a replay from any later
    // offset would re-read published traces' roots without their first spans.
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    const ids = Array.from({ length: 50 }, (_, i) => i.toString(16).padStart(32, '0'));
    ids.forEach((id, i) => buf.add(createTestSpan({ trace_id: id, parent_span_id: ROOT }), 0, BigInt(i * 2), 0));
    // Close every odd trace, then the even ones from the lowest up: the mark follows the oldest open.
    for (const [i, id] of ids.entries()) {
      if (i % 2 === 1) {
        buf.add(createTestSpan({ trace_id: id, span_id: ROOT }), 0, 1000n + BigInt(i), 1);
      }
    }
    for (const t of buf.takeReady(1)) buf.confirm(t.traceId, 1);
    expect(buf.lowWaterMark(0)).toBe(0n);
    for (let i = 0; i < 50; i += 2) {
      buf.add(createTestSpan({ trace_id: ids[i], span_id: ROOT }), 0, 2000n + BigInt(i), 2);
      for (const t of buf.takeReady(2)) buf.confirm(t.traceId, 2);
      expect(buf.lowWaterMark(0)).toBe(i + 2 < 50 ? 0n : null);
    }
  });

  it('gives back large spans (held deflated) exactly, a re-send once and a differing copy too, also after a late span re-opens the trace', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    const long = (n: number) => `Your table for ${n} is booked; we hold it for fifteen minutes. `.repeat(40);
    const child = createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT, genai: { operation: 'chat', output_messages: [{ role: 'assistant', content: long(2) }] } });
    const root = createTestSpan({ trace_id: A, span_id: ROOT, genai: { operation: 'invoke_agent', input_messages: [{ role: 'user', content: long(3) }] } });
    const copy = { ...child, genai: { operation: 'chat', output_messages: [{ role: 'assistant' as const, content: long(4) }] } };
    buf.add(child, 0, 1n, 0);
    buf.add({ ...child, received_at_ms: child.received_at_ms + 5 }, 0, 2n, 0);
    buf.add(copy, 0, 3n, 0);
    buf.add(root, 0, 4n, 0);
    const [ready] = buf.takeReady(1);
    expect(ready.spans).toEqual([child, root, copy]);
    buf.confirm(A, 1);
    const late = createTestSpan({ trace_id: A, span_id: '5'.repeat(16), parent_span_id: ROOT });
    buf.add(late, 0, 5n, 2);
    expect(buf.takeReady(3)[0].spans).toEqual([child, root, late, copy]);
  });

  it('unpacks a large trace in steps of 200 records, from the records held when it was taken', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    const children = Array.from({ length: 450 }, (_, i) => createTestSpan({ trace_id: A, span_id: (i + 2).toString(16).padStart(16, '0'), parent_span_id: ROOT }));
    children.forEach((s, i) => buf.add(s, 0, BigInt(i), 0));
    const root = createTestSpan({ trace_id: A, span_id: ROOT });
    buf.add(root, 0, 450n, 0);
    const [taken] = buf.takeReadyInSteps(1);
    expect(taken.reason).toBe('root-ended');
    // A span that comes while the trace is unpacked is not in this unit: the trace stays open for it.
    const late = createTestSpan({ trace_id: A, span_id: 'f'.repeat(16), parent_span_id: ROOT });
    buf.add(late, 0, 451n, 1);
    let steps = 0;
    let step = taken.parts.next();
    for (; !step.done; step = taken.parts.next()) steps++;
    expect(steps).toBe(2); // after records 200 and 400 of 451
    expect(step.value.spans).toEqual([...children, root]);
    buf.confirm(A, 2);
    expect(buf.openCount()).toBe(1);
    expect(buf.takeReady(3)[0].spans).toEqual([...children, root, late]);
  });

  it('closes a trace only after its root has ended and a quiet grace period has passed', () => {
    const buf = createTraceWindowHarness({ graceMs: 100, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    buf.add(createTestSpan({ trace_id: A, parent_span_id: ROOT }), 0, 5n, 0);
    expect(buf.takeReady(1_000)).toEqual([]);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 6n, 1_000);
    expect(buf.takeReady(1_050)).toEqual([]);
    const ready = buf.takeReady(1_100);
    expect(ready.map((r) => [r.traceId, r.reason, r.spans.length])).toEqual([[A, 'root-ended', 2]]);
  });

  it('holds the commit at the oldest open trace until its unit is confirmed', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    buf.add(createTestSpan({ trace_id: A, parent_span_id: ROOT }), 0, 3n, 0);
    buf.add(createTestSpan({ trace_id: B, span_id: ROOT }), 0, 4n, 0);
    expect(buf.lowWaterMark(0)).toBe(3n);
    expect(buf.lowWaterMark(1)).toBeNull();
    const [b] = buf.takeReady(1);
    expect(b.traceId).toBe(B);
    buf.confirm(B, 1);
    expect(buf.lowWaterMark(0)).toBe(3n);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 7n, 2);
    expect(buf.takeReady(2).map((r) => r.traceId)).toEqual([A]);
    // Taken but not confirmed: a crash now must re-read it.
    expect(buf.lowWaterMark(0)).toBe(3n);
    buf.release(A);
    expect(buf.takeReady(3).map((r) => r.traceId)).toEqual([A]);
    buf.confirm(A, 3);
    expect(buf.lowWaterMark(0)).toBeNull();
  });

  it('never puts the commit inside a published trace: a replay re-reads it whole or not at all', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    const C = 'c'.repeat(32);
    const D = 'd'.repeat(32);
    // C's child at 3, D's first record at 8, C's root at 12: C closes while D stays open.
    buf.add(createTestSpan({ trace_id: C, parent_span_id: ROOT }), 0, 3n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 5n, 0);
    buf.add(createTestSpan({ trace_id: D, parent_span_id: ROOT }), 0, 8n, 0);
    buf.add(createTestSpan({ trace_id: C, span_id: ROOT }), 0, 12n, 0);
    for (const t of buf.takeReady(1)) buf.confirm(t.traceId, 1);
    expect(buf.openCount()).toBe(1);
    // Not 8: committing there would replay C's root alone after a crash.
    expect(buf.lowWaterMark(0)).toBe(3n);
    buf.add(createTestSpan({ trace_id: D, span_id: ROOT }), 0, 20n, 2);
    buf.add(createTestSpan({ trace_id: B, parent_span_id: ROOT }), 0, 21n, 2);
    for (const t of buf.takeReady(3)) buf.confirm(t.traceId, 3);
    // D is published; B (open at 21) is past every published trace's last record.
    expect(buf.lowWaterMark(0)).toBe(21n);
  });

  it('de-duplicates a span sent twice and closes a rootless trace after the max open time', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 500, retainClosedMs: 10_000 });
    const span = createTestSpan({ trace_id: A, parent_span_id: ROOT });
    buf.add(span, 0, 1n, 0);
    buf.add(span, 0, 2n, 10);
    expect(buf.takeReady(499)).toEqual([]);
    const [r] = buf.takeReady(500);
    expect([r.reason, r.spans.length]).toEqual(['max-open', 1]);
  });

  it('re-opens a closed trace whole when a late span arrives', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 1n, 0);
    buf.takeReady(0);
    buf.confirm(A, 0);
    buf.add(createTestSpan({ trace_id: A, parent_span_id: ROOT }), 0, 9n, 5);
    const [r] = buf.takeReady(5);
    expect([r.traceId, r.spans.length]).toEqual([A, 2]);
  });

  it('takes an exact re-send of a published span as handled: nothing re-opens, nothing is held', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    const root = createTestSpan({ trace_id: A, span_id: ROOT });
    const child = createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT });
    buf.add(child, 0, 1n, 0);
    buf.add(root, 0, 2n, 0);
    buf.confirm(buf.takeReady(0)[0].key, 0);
    // The exporter retried the batch whose answer a crash cut off: only the arrival time differs.
    expect(buf.add({ ...child, received_at_ms: child.received_at_ms + 900 }, 0, 7n, 5)).toBeNull();
    expect([buf.openCount(), buf.takeReady(5), buf.lowWaterMark(0)]).toEqual([0, [], null]);
  });

  it('knows a re-send whose fields come in another order (the held copy is read back in its packed order)', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    const root = createTestSpan({ trace_id: A, span_id: ROOT });
    const child = createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT });
    const reordered = <T extends object>(record: T): T => Object.fromEntries(Object.entries(record).reverse()) as T;
    buf.add(child, 0, 1n, 0);
    // Open, then published: a re-send is neither a copy in the unit nor a reason to re-open it.
    buf.add(reordered({ ...child, received_at_ms: child.received_at_ms + 400 }), 0, 2n, 0);
    buf.add(root, 0, 3n, 0);
    const [unit] = buf.takeReady(0);
    expect(unit.spans.map((s) => s.span_id)).toEqual(['2'.repeat(16), ROOT]);
    buf.confirm(unit.key, 0);
    expect(buf.add(reordered({ ...root, received_at_ms: root.received_at_ms + 900 }), 0, 4n, 5)).toBeNull();
    expect([buf.openCount(), buf.takeReady(5)]).toEqual([0, []]);
  });

  it('holds the commit below the first records of a trace a late span re-opened, until it is published again', () => {
    // Published at offsets 1-2 and committed no further than 2 (another trace open at 3), then a
    // late span at 9: a crash before the trace is published again must replay it whole, never the
    // late span alone (a fragment that would replace the whole unit).
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000 });
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 2n, 0);
    buf.confirm(buf.takeReady(0)[0].key, 0);
    buf.add(createTestSpan({ trace_id: B, span_id: '3'.repeat(16), parent_span_id: ROOT }), 0, 3n, 1);
    buf.add(createTestSpan({ trace_id: A, span_id: '4'.repeat(16), parent_span_id: ROOT }), 0, 9n, 2);
    expect(buf.lowWaterMark(0)).toBe(1n);
    const [again] = buf.takeReady(2).filter((r) => r.key === A);
    expect(again.spans.length).toBe(3);
    buf.confirm(A, 2);
    // Published again as [1, 9], it straddles B's first record: the rule keeps the mark at 1.
    expect(buf.lowWaterMark(0)).toBe(1n);
    buf.add(createTestSpan({ trace_id: B, span_id: ROOT }), 0, 10n, 3);
    buf.confirm(buf.takeReady(3)[0].key, 3);
    expect(buf.lowWaterMark(0)).toBeNull();
  });

  it('past the span cap, counts a span left out each time it is sent, whether or not the trace closed in between', () => {
    const root = createTestSpan({ trace_id: A, span_id: ROOT, name: 'root' });
    const kept = createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT, name: 'kept' });
    // Another span under the kept span's id: past the cap, it is left out.
    const other = { ...kept, name: 'another span, same id' };
    const dropped = (r: { dropped?: { spans: number } }) => r.dropped?.spans;
    const open = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000, maxSpansPerTrace: 2 });
    const closing = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000, maxSpansPerTrace: 2 });
    for (const buf of [open, closing]) [root, kept, other].forEach((s, i) => buf.add(s, 0, BigInt(i), 0));
    const [first] = closing.takeReady(0);
    expect([first.spans.length, dropped(first)]).toEqual([2, 1]);
    closing.confirm(A, 0);
    // The exporter retries the whole batch: the kept spans are re-sends, the one left out counts again.
    for (const buf of [open, closing]) [root, kept, other].forEach((s, i) => buf.add({ ...s, received_at_ms: 5 }, 0, BigInt(3 + i), 5));
    for (const buf of [open, closing]) {
      const [r] = buf.takeReady(5);
      expect([r.spans.length, dropped(r)]).toEqual([2, 2]);
    }
  });

  it('keeps at most maxClosedTraces closed traces for late spans, dropping the oldest', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 10_000, retainClosedMs: 10_000, maxClosedTraces: 2 });
    for (const id of ['1', '2', '3'].map((c) => c.repeat(32))) {
      buf.add(createTestSpan({ trace_id: id, span_id: ROOT }), 0, 1n, 0);
      buf.takeReady(0);
      buf.confirm(id, 0);
    }
    expect(buf.closedCount()).toBe(2);
    // The oldest was dropped: a late span for it becomes a fragment unit of its own, which must not
    // replace the trace's published unit; a span of a retained trace re-opens it whole.
    const late = createTestSpan({ trace_id: '1'.repeat(32), parent_span_id: ROOT });
    buf.add(late, 0, 9n, 1);
    buf.add(createTestSpan({ trace_id: '3'.repeat(32), parent_span_id: ROOT }), 0, 10n, 1);
    expect(buf.takeReady(1).map((r) => [r.traceId, r.unitId ?? null, r.spans.length])).toEqual([
      ['1'.repeat(32), `${'1'.repeat(32)}-late-${late.span_id}`, 1],
      ['3'.repeat(32), null, 2],
    ]);
  });

  it('closes a trace whose top span has a parent in a calling service, once that entry span ended', () => {
    const buf = createTraceWindowHarness({ graceMs: 100, entryGraceMs: 5_000, maxOpenMs: 300_000, retainClosedMs: 10_000 });
    const remoteParent = 'e'.repeat(16);
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 1n, 0);
    // A plain child whose parent is missing is not an entry: keep waiting.
    expect(buf.takeReady(1_000)).toEqual([]);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT, parent_span_id: remoteParent, span_kind: 2 }), 0, 2n, 1_000);
    // A local root may still come in the SDK's next export batch: wait the longer entry grace.
    expect(buf.takeReady(1_100)).toEqual([]);
    expect(buf.takeReady(6_000).map((r) => [r.reason, r.spans.length])).toEqual([['root-ended', 2]]);
  });

  it('waits for a true root that comes after an entry span, then uses the short grace', () => {
    const buf = createTraceWindowHarness({ graceMs: 100, entryGraceMs: 5_000, maxOpenMs: 300_000, retainClosedMs: 10_000 });
    buf.add(createTestSpan({ trace_id: A, parent_span_id: ROOT, genai: { operation: 'invoke_agent' } }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 2n, 3_000);
    expect(buf.takeReady(3_050)).toEqual([]);
    expect(buf.takeReady(3_100).map((r) => r.spans.length)).toEqual([2]);
  });

  it("a trace id another project holds is two traces: the owner's unit as it was, the other's named <trace id>@<project>", () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT, project: 'shop' }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT, project: 'bank', name: 'bank root' }), 0, 2n, 0);
    expect(buf.openCount()).toBe(2);
    const ready = buf.takeReady(1);
    expect(ready.map((r) => [r.key, r.traceId, r.projectUnitId ?? null, r.spans.map((s) => [s.project, s.name])])).toEqual([
      [`shop\u0000${A}`, A, null, [['shop', 'span']]],
      [`bank\u0000${A}`, A, `${A}@bank`, [['bank', 'bank root']]],
    ]);
    expect(assembleTrace(ready[0], 1).unit_id).toBe(A);
    expect(assembleTrace(ready[1], 1).unit_id).toBe(`${A}@bank`);
    for (const r of ready) buf.confirm(r.key, 1);
    // Closed and retained: a late span of each re-opens its own project's trace, under the same unit id.
    buf.add(createTestSpan({ trace_id: A, span_id: '9'.repeat(16), parent_span_id: ROOT, project: 'bank' }), 0, 3n, 2);
    const [again] = buf.takeReady(3);
    expect([again.key, again.projectUnitId, again.spans.length]).toEqual([`bank\u0000${A}`, `${A}@bank`, 2]);
    buf.confirm(again.key, 3);
    // A third project, while both are held: its own unit id too.
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT, project: 'card' }), 0, 4n, 4);
    expect(buf.takeReady(5).map((r) => r.projectUnitId)).toEqual([`${A}@card`]);
    // Open mode (no project) is the project `default`, keyed by the trace id alone as before.
    buf.add(createTestSpan({ trace_id: B, span_id: ROOT }), 0, 5n, 6);
    buf.add(createTestSpan({ trace_id: B, span_id: '8'.repeat(16), parent_span_id: ROOT, project: 'default' }), 0, 6n, 6);
    expect(buf.takeReady(7).map((r) => [r.key, r.projectUnitId ?? null, r.spans.length])).toEqual([[B, null, 2]]);
  });

  it("a late span of a second project's evicted trace is a fragment named after its project", () => {
    const buf = createTraceWindowHarness({ graceMs: 0, completeGraceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000, maxClosedTraces: 1 });
    // The shop's trace stays open (no root); the bank's closes, then is evicted by the next trace closing.
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT, project: 'shop' }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT, project: 'bank' }), 0, 2n, 0);
    expect(buf.takeReady(1).map((r) => [r.key, r.projectUnitId])).toEqual([[`bank\u0000${A}`, `${A}@bank`]]);
    buf.confirm(`bank\u0000${A}`, 1);
    buf.add(createTestSpan({ trace_id: B, span_id: ROOT, project: 'bank' }), 0, 3n, 2);
    for (const r of buf.takeReady(3)) buf.confirm(r.key, 3);
    const late = createTestSpan({ trace_id: A, span_id: '9'.repeat(16), parent_span_id: ROOT, project: 'bank' });
    buf.add(late, 0, 4n, 4);
    const [fragment] = buf.takeReady(5);
    const unit = assembleTrace(fragment, 5);
    expect([fragment.key, fragment.unitId, unit.unit_id]).toEqual([`bank\u0000${A}`, `${A}@bank-late-${late.span_id}`, `${A}@bank-late-${late.span_id}`]);
    expect(unit.errors).toEqual([{ message: `late spans of trace ${A}, which was already scored as unit ${A}@bank; scored apart so as not to replace it` }]);
  });
});
