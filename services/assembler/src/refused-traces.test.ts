import { describe, expect, it } from 'vitest';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);
const ROOT = '1'.repeat(16);
const options = { graceMs: 2_000, completeGraceMs: 200, maxOpenMs: 300_000, retainClosedMs: 300_000, refusedGraceMs: 15_000 };

describe('trace window: traces whose root the collector refused', () => {
  it('closes a root-less trace refusedGraceMs after the refusal and its last span, not after the max open time', () => {
    const buf = createTraceWindowHarness(options);
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 1n, 0);
    buf.add(createTestSpan({ trace_id: A, span_id: '3'.repeat(16), parent_span_id: ROOT }), 0, 2n, 0);
    buf.add(createTestSpan({ trace_id: B, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 3n, 0);
    buf.refused([A], 1_000);
    // A span of A after the refusal: the grace runs from it.
    buf.add(createTestSpan({ trace_id: A, span_id: '4'.repeat(16), parent_span_id: ROOT }), 0, 4n, 2_000);
    expect(buf.takeReady(16_999)).toEqual([]);
    const [a, ...rest] = buf.takeReady(17_000);
    expect(rest).toEqual([]);
    expect([a.traceId, a.reason, a.spans.length]).toEqual([A, 'root-refused', 3]);
    buf.confirm(a.key, 17_000);
    // B was never refused: it waits for its root until the max open time.
    expect(buf.takeReady(299_999)).toEqual([]);
    expect(buf.takeReady(300_000).map((t) => [t.traceId, t.reason])).toEqual([[B, 'max-open']]);
  });

  it('remembers a refusal that comes before the trace\'s spans are read, and lets a root sent again close the trace whole', () => {
    const buf = createTraceWindowHarness(options);
    // The collector refused C's root while C's children were still unread on the bus.
    buf.refused([C, A], 0);
    buf.add(createTestSpan({ trace_id: C, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 1n, 500);
    expect(buf.takeReady(15_499)).toEqual([]);
    expect(buf.takeReady(15_500).map((t) => [t.traceId, t.reason, t.spans.length])).toEqual([[C, 'root-refused', 1]]);
    // A: the exporter's retry brought the root within the grace: one unit, root and child, as ever.
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT }), 0, 2n, 1_000);
    buf.add(createTestSpan({ trace_id: A, span_id: ROOT }), 0, 3n, 6_000);
    expect(buf.takeReady(6_200).map((t) => [t.traceId, t.reason, t.spans.length])).toEqual([[A, 'root-ended', 2]]);
  });

  it('keeps another project\'s trace of the same id waiting', () => {
    const buf = createTraceWindowHarness(options);
    buf.add(createTestSpan({ trace_id: A, span_id: '2'.repeat(16), parent_span_id: ROOT, project: 'p1' }), 0, 1n, 0);
    buf.refused([A], 0, 'p2');
    expect(buf.takeReady(16_000)).toEqual([]);
  });
});
