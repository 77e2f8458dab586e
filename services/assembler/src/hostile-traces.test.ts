import { describe, expect, it } from 'vitest';
import type { ChatMessage, LogRecordEnvelope, SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import { assembleTrace } from './assemble-trace.ts';
import { appendDeduplicated } from './merge-history.ts';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { assistant, createTestSpan, user } from '../../../test/helpers/span-factory.ts';

// Issue 11: traces built to hurt. Each of these froze or crashed assembly before: quadratic walks
// (a 30,000-span chain took minutes), spreads of 130,000 values (RangeError: call stack), a span id
// sent twice replacing the first span without a word.

const T = 'd'.repeat(32);
const id = (i: number): string => (i + 1).toString(16).padStart(16, '0');

/** Span i: a model call with usage and a one-turn dialog under `parent`; every third a tool run. */
function hostileSpan(i: number, parent: number | null): SpanRecord {
  const tool = i % 3 === 2;
  return createTestSpan({
    trace_id: T,
    span_id: id(i),
    ...(parent === null ? {} : { parent_span_id: id(parent) }),
    startMs: 1_700_000_000_000 + i,
    genai: tool
      ? { operation: 'execute_tool', tool_execution: { name: 'lookup', call_id: `call_${i - 1}`, result: `r${i}` } }
      : {
          operation: 'chat',
          usage: { input_tokens: 10, output_tokens: 5 },
          input_messages: [user(`question ${i}`)],
          output_messages: [{ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'lookup', arguments: `{"q":${i}}` } }] }],
        },
  });
}

describe('very large traces', () => {
  it('assembles a 30,000-span parent chain: each span wraps the next, so only the innermost call counts', { timeout: 60_000 }, () => {
    const spans = Array.from({ length: 30_000 }, (_, i) => hostileSpan(i, i === 0 ? null : i - 1));
    const unit = assembleTrace({ traceId: T, spans, logs: [] }, 1);
    expect(unit.span_count).toBe(30_000);
    // 29,999 is a tool span; 29,998 is the innermost model call.
    expect(unit.usage).toEqual({ input_tokens: 10, output_tokens: 5 });
    expect(unit.message_history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    // One call in the dialog; the tool runs whose calls were in the wrappers' dialogs are calls of their own.
    expect(unit.tool_calls.length).toBe(10_000);
    expect(unit.start_time_ms).toBe(1_700_000_000_000);
    expect(unit.end_time_ms).toBe(1_700_000_000_000 + 29_999 + 10);
  });

  it('assembles a 130,000-span wide trace without a stack overflow, every call and tool result linked', { timeout: 60_000 }, () => {
    const spans = Array.from({ length: 130_000 }, (_, i) => hostileSpan(i, i === 0 ? null : 0));
    const unit = assembleTrace({ traceId: T, spans, logs: [] }, 1);
    const calls = Math.ceil((130_000 - 1) * (2 / 3)); // spans 1…129,999 that are not tool runs
    expect(unit.span_count).toBe(130_000);
    expect(unit.usage).toEqual({ input_tokens: 10 * calls, output_tokens: 5 * calls });
    expect(unit.message_history).toHaveLength(2 * calls + 43_333);
    expect(unit.tool_calls.filter((c) => c.result !== null)).toHaveLength(43_333);
    expect(unit.start_time_ms).toBe(1_700_000_000_000);
    expect(unit.end_time_ms).toBe(1_700_000_000_000 + 129_999 + 10);
  });

  it('ends on parent links that form a cycle', () => {
    const a = createTestSpan({ trace_id: T, span_id: id(1), parent_span_id: id(2), genai: { usage: { input_tokens: 1 } } });
    const b = createTestSpan({ trace_id: T, span_id: id(2), parent_span_id: id(1), genai: { usage: { input_tokens: 2 } } });
    expect(assembleTrace({ traceId: T, spans: [a, b], logs: [] }, 1).usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it('bounds the overlap search of a history built to make it quadratic', () => {
    const same = Array.from({ length: 20_000 }, (): ChatMessage => user('a'));
    const history = appendDeduplicated([], [...same, assistant('c')]);
    const merged = appendDeduplicated(history, [...same, assistant('b')]);
    // No suffix of the dialog is a prefix of the call (the dialog ends in "c"): appended whole.
    expect(merged).toHaveLength(40_002);
    expect(merged.at(-1)).toEqual(assistant('b'));
  });
});

describe('the span cap', () => {
  const child = (i: number): SpanRecord => createTestSpan({ trace_id: T, span_id: id(i), parent_span_id: id(0), startMs: 1_700_000_000_000 + i });
  const root = createTestSpan({ trace_id: T, span_id: id(0), startMs: 1_700_000_000_000, genai: { agent_name: 'runaway' } });

  it('keeps the first spans and the root that comes last, counts the rest, and flags the unit truncated', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000, maxSpansPerTrace: 3 });
    for (let i = 1; i <= 5; i++) buf.add(child(i), 0, BigInt(i), 0);
    buf.add(root, 0, 6n, 0);
    const [ready] = buf.takeReady(1);
    expect(ready.spans.map((s) => s.span_id)).toEqual([id(1), id(2), id(3), id(0)]);
    expect(ready.dropped).toEqual({ spans: 2, logs: 0, maxSpans: 3 });
    const unit = assembleTrace(ready, 1);
    expect(unit.span_count).toBe(4);
    expect(unit.truncated).toBe(true);
    expect(unit.agent_name).toBe('runaway');
    expect(unit.errors).toEqual([
      { type: 'tracecheck.span_limit', message: 'the trace had more records than the limit of 3 spans per trace: 2 spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)' },
    ]);
  });

  it('closes a trace at the cap once quiet, without its root; the root re-opens it and the counts carry over', () => {
    const buf = createTraceWindowHarness({ graceMs: 2_000, completeGraceMs: 200, maxOpenMs: 60_000, retainClosedMs: 60_000, maxSpansPerTrace: 3 });
    for (let i = 1; i <= 4; i++) buf.add(child(i), 0, BigInt(i), 0);
    expect(buf.takeReady(199)).toEqual([]);
    const [first] = buf.takeReady(200);
    expect(first.reason).toBe('span-limit');
    expect(first.spans).toHaveLength(3);
    buf.confirm(T, 200);
    expect(buf.lowWaterMark(0)).toBeNull();
    buf.add(child(5), 0, 5n, 300);
    buf.add(root, 0, 6n, 300);
    const [second] = buf.takeReady(500);
    expect(second.spans.map((s) => s.span_id)).toEqual([id(1), id(2), id(3), id(0)]);
    expect(second.dropped).toEqual({ spans: 2, logs: 0, maxSpans: 3 });
  });

  it('keeps ten log records per span of the cap', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000, maxSpansPerTrace: 1 });
    buf.add(root, 0, 0n, 0);
    for (let i = 0; i < 12; i++) {
      const log: LogRecordEnvelope = { schema_version: 1, kind: 'log', trace_id: T, span_id: id(0), event_name: 'gen_ai.user.message', time_unix_nano: '1', sequence: i, is_output: false, attributes: {}, received_at_ms: 0 };
      buf.add(log, 0, BigInt(i + 1), 0);
    }
    const [ready] = buf.takeReady(1);
    expect(ready.logs).toHaveLength(10);
    expect(ready.dropped).toEqual({ spans: 0, logs: 2, maxSpans: 1 });
  });
});

describe('a span that arrives while its trace is being published', () => {
  it('keeps the trace open, so that the span reaches a unit and is not committed unseen', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    buf.add(createTestSpan({ trace_id: T, span_id: id(0) }), 0, 0n, 0);
    const [taken] = buf.takeReady(1);
    expect(taken.spans).toHaveLength(1);
    buf.add(createTestSpan({ trace_id: T, span_id: id(1), parent_span_id: id(0) }), 0, 1n, 1);
    buf.confirm(T, 2);
    expect(buf.lowWaterMark(0)).toBe(0n);
    const [again] = buf.takeReady(3);
    expect(again.spans.map((s) => s.span_id)).toEqual([id(0), id(1)]);
    buf.confirm(T, 3);
    expect(buf.lowWaterMark(0)).toBeNull();
  });
});

describe('duplicate span ids', () => {
  const tool = (result: string, receivedAtMs: number): SpanRecord =>
    createTestSpan({ trace_id: T, span_id: id(7), parent_span_id: id(0), startMs: 1_700_000_000_100, genai: { tool_execution: { name: 'lookup', result } }, received_at_ms: receivedAtMs });
  const root = createTestSpan({ trace_id: T, span_id: id(0), startMs: 1_700_000_000_000 });

  it('keeps both spans that claim one id, and the unit says so', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    buf.add(root, 0, 0n, 0);
    buf.add(tool('first', 1), 0, 1n, 0);
    buf.add(tool('second', 2), 0, 2n, 0);
    const unit = assembleTrace(buf.takeReady(1)[0], 1);
    expect(unit.span_count).toBe(3);
    expect(unit.tool_calls).toEqual([
      { id: `span:${id(7)}`, name: 'lookup', arguments: '{}', result: 'first', error: null },
      { id: `span:${id(7)}#2`, name: 'lookup', arguments: '{}', result: 'second', error: null },
    ]);
    expect(unit.errors).toEqual([{ span_id: id(7), type: 'tracecheck.duplicate_span_id', message: `span id ${id(7)} arrived 2 times with different contents; every copy is kept` }]);
  });

  it('keeps an exporter\'s re-send (same contents, received later) once, unflagged', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    buf.add(root, 0, 0n, 0);
    buf.add(tool('same', 1), 0, 1n, 0);
    buf.add(tool('same', 5_000), 0, 2n, 0);
    buf.add(tool('same', 9_000), 0, 3n, 0);
    const unit = assembleTrace(buf.takeReady(1)[0], 1);
    expect(unit.span_count).toBe(2);
    expect(unit.errors).toEqual([]);
  });

  it('keeps both copies when a late span re-opens the trace', () => {
    const buf = createTraceWindowHarness({ graceMs: 0, maxOpenMs: 60_000, retainClosedMs: 60_000 });
    buf.add(root, 0, 0n, 0);
    buf.add(tool('first', 1), 0, 1n, 0);
    buf.add(tool('second', 2), 0, 2n, 0);
    buf.confirm(buf.takeReady(1)[0].traceId, 1);
    buf.add(tool('second', 3), 0, 3n, 2);
    buf.add(tool('third', 4), 0, 4n, 2);
    const unit = assembleTrace(buf.takeReady(3)[0], 3);
    expect(unit.tool_calls.map((c) => c.result)).toEqual(['first', 'second', 'third']);
    expect(unit.errors.map((e) => e.message)).toEqual([`span id ${id(7)} arrived 3 times with different contents; every copy is kept`]);
  });
});
