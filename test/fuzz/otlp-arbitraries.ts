import fc from 'fast-check';
import protobuf from 'protobufjs/minimal.js';
import { anyValue, deepValue, encodeLogsRequest as encodeLogs, encodeTraceRequest as encodeTrace, type JsonAnyValue } from '../../services/collector/src/testing/otlp-builders.ts';
import { U64_MAX, attributeValue, countField, deepDepth, enumField, genaiAttributes, hex, hostileText, legacyEvents, role, timeField, timeJson, u64Nanos, type TimeField } from './otlp-hostile-values.ts';

// Generators of OTLP trace exports as instrumentation libraries send them (every GenAI convention
// family the collector reads), hostile ones (timestamps, enums and counts out of range or of the
// wrong type, values nested past the collector's limit of 64, span ids sent twice, traces past a
// small span cap); the hostile values are in otlp-hostile-values.ts, mutations of the exports
// (JSON values swapped, slots duplicated, bytes flipped) in otlp-mutations.ts.
//
// Two flavours: `traceRequest` may carry values only OTLP/JSON can express (a fractional or
// non-numeric timestamp, an enum name); `portableTraceRequest` only values both encodings carry
// (any uint64 timestamp, any int32 enum, any uint32 count), so that its JSON and protobuf forms
// must give the same result.

/** Largest span count of the occasional large trace: past the small cap the fuzz tests configure. */
const MAX_SPANS = 20;

interface SpanShape {
  spanId: string;
  /** Index of another span of the trace, -1 for a root, -2 (or out of range) for a parent that is never exported. */
  parent: number;
  missingParentId: string;
  name: string;
  kind: unknown;
  start: TimeField;
  /** End = start + duration (occasionally negative: an end before the start), or a field of its own. */
  end: { durationNanos: bigint } | TimeField;
  timesAsNumbers: boolean;
  attributes: Record<string, unknown>;
  /** A value nested this deep, in an attribute of the span or of its first event. */
  deep: { depth: number; inEvent: boolean } | null;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code: unknown; message: string };
  droppedAttributesCount: unknown;
}

// A few span ids shared by every trace, so that different spans of one trace meet under one id.
const spanId = fc.oneof({ weight: 12, arbitrary: hex(8) }, { weight: 1, arbitrary: fc.constantFrom('00000000000000aa', '00000000000000bb') });

function spanShape(portable: boolean): fc.Arbitrary<SpanShape> {
  return fc.record({
    spanId,
    parent: fc.integer({ min: -2, max: MAX_SPANS }),
    missingParentId: hex(8),
    name: hostileText,
    kind: enumField([0, 1, 2, 3, 4, 5], ['SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_INTERNAL'], portable),
    start: timeField(portable),
    end: fc.oneof({ weight: 10, arbitrary: fc.bigInt({ min: -1_000_000_000n, max: 60_000_000_000n }).map((d) => ({ durationNanos: d })) }, { weight: 1, arbitrary: timeField(portable) }),
    timesAsNumbers: fc.boolean(),
    attributes: genaiAttributes,
    deep: fc.oneof({ weight: 10, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.record({ depth: deepDepth, inEvent: fc.boolean() }) }),
    events: legacyEvents,
    status: fc.record({ code: enumField([0, 1, 2], ['STATUS_CODE_OK', 'STATUS_CODE_ERROR'], portable), message: hostileText }),
    droppedAttributesCount: countField(portable),
  });
}

/** AnyValue of a value whose integers may not fit int64 in protobuf: those go as doubles. */
function safeAnyValue(v: unknown): JsonAnyValue {
  if (typeof v === 'bigint') return { intValue: v.toString() };
  if (typeof v === 'number' && !Number.isSafeInteger(v)) return { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(safeAnyValue) } };
  if (typeof v === 'object' && v !== null) return { kvlistValue: { values: Object.entries(v).map(([key, value]) => ({ key, value: safeAnyValue(value) })) } };
  return anyValue(v);
}

const keyValues = (attrs: Record<string, unknown>) => Object.entries(attrs).map(([key, value]) => ({ key, value: safeAnyValue(value) }));

function endField(s: SpanShape): TimeField {
  if (!('durationNanos' in s.end)) return s.end;
  if (!('u64' in s.start)) return s.start;
  const end = s.start.u64 + s.end.durationNanos;
  return { u64: end < 0n ? 0n : end > U64_MAX ? U64_MAX : end };
}

/** Sent again later in the trace's spans: the same span exactly (an exporter's retry), or another span under its id. */
interface Resend {
  of: number;
  at: number;
  exact: boolean;
}

function spansOfTrace(traceId: string, shapes: SpanShape[], resends: Resend[]): Record<string, unknown>[] {
  const spans = shapes.map((s, i) => {
    // A parent may come later in the export, or make a cycle (A under B under A).
    const parentSpanId = s.parent === -1 ? undefined : s.parent === -2 || s.parent >= shapes.length || s.parent === i ? s.missingParentId : shapes[s.parent].spanId;
    const attributes = keyValues(s.attributes);
    const events = s.events.map((e) => ({ name: e.name, timeUnixNano: timeJson(s.start, s.timesAsNumbers), attributes: keyValues(e.attributes) }));
    if (s.deep) {
      const deep = { key: 'fuzz.deep', value: safeAnyValue(deepValue(s.deep.depth)) };
      if (s.deep.inEvent && events.length > 0) events[0].attributes.push(deep);
      else attributes.push(deep);
    }
    return {
      traceId,
      spanId: s.spanId,
      ...(parentSpanId && parentSpanId !== s.spanId ? { parentSpanId } : {}),
      name: s.name,
      kind: s.kind,
      startTimeUnixNano: timeJson(s.start, s.timesAsNumbers),
      endTimeUnixNano: timeJson(endField(s), s.timesAsNumbers),
      attributes,
      events,
      status: s.status,
      ...(s.droppedAttributesCount !== undefined ? { droppedAttributesCount: s.droppedAttributesCount } : {}),
    };
  });
  for (const r of resends) {
    const copy = structuredClone(spans[r.of % spans.length]);
    if (!r.exact) copy.name = `${String(copy.name)} (another span, same id)`;
    spans.splice(r.at % (spans.length + 1), 0, copy);
  }
  return spans;
}

const resend: fc.Arbitrary<Resend> = fc.record({ of: fc.nat(), at: fc.nat(), exact: fc.boolean() });

function traceRequestOf(portable: boolean): fc.Arbitrary<Record<string, unknown>> {
  const shape = spanShape(portable);
  // Mostly a few spans; now and then a trace past the small span cap the tests configure.
  const shapes = fc.oneof({ weight: 8, arbitrary: fc.array(shape, { minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.array(shape, { minLength: 10, maxLength: MAX_SPANS }) });
  return fc
    .array(
      fc.record({
        resource: fc.dictionary(fc.constantFrom('service.name', 'service.version', 'deployment.environment', 'gen_ai.agent.name', 'session.id', 'x'), attributeValue, { maxKeys: 3 }),
        scope: fc.record({ name: hostileText, version: hostileText }),
        traces: fc.array(fc.tuple(hex(16), shapes, fc.array(resend, { maxLength: 2 })), { minLength: 1, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 2 },
    )
    .map((resources) => ({
      resourceSpans: resources.map((r) => ({
        resource: { attributes: keyValues(r.resource) },
        scopeSpans: [{ scope: r.scope, spans: r.traces.flatMap(([traceId, s, resends]) => spansOfTrace(traceId, s, resends)) }],
      })),
    }));
}

/** An ExportTraceServiceRequest (OTLP/JSON shape) of a few traces with GenAI attributes, hostile in every way OTLP/JSON allows. */
export const traceRequest: fc.Arbitrary<Record<string, unknown>> = traceRequestOf(false);

/** As `traceRequest`, with only values the protobuf encoding carries too (its JSON and protobuf forms mean the same). */
export const portableTraceRequest: fc.Arbitrary<Record<string, unknown>> = traceRequestOf(true);

/**
 * protobufjs refuses to encode messages nested past `util.recursionLimit` (100 messages: about 38
 * AnyValue levels), and the values here go to 300: the limit is raised while encoding. The
 * collector's decoding has a limit of its own (`Reader.recursionLimit`), left alone.
 */
function deeply<T>(encode: () => T): T {
  const before = protobuf.util.recursionLimit;
  protobuf.util.recursionLimit = 2_000;
  try {
    return encode();
  } finally {
    protobuf.util.recursionLimit = before;
  }
}

export const encodeTraceRequest = (json: Record<string, unknown>): Uint8Array => deeply(() => encodeTrace(json));
export const encodeLogsRequest = (json: Record<string, unknown>): Uint8Array => deeply(() => encodeLogs(json));

const EVENT_NAMES = ['gen_ai.user.message', 'gen_ai.system.message', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.choice', 'gen_ai.client.inference.operation.details', 'other', ''];

/**
 * A trace export and a logs export whose records belong to its spans (legacy GenAI message events
 * and operation-details events), some to unknown spans or traces.
 */
export const traceAndLogsRequests: fc.Arbitrary<{ traces: Record<string, unknown>; logs: Record<string, unknown> }> = portableTraceRequest.chain((traces) => {
  const spans = (traces.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; spanId: string }> }> }>).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
  const owner = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...spans).map((s) => ({ traceId: s.traceId, spanId: s.spanId })) }, { weight: 1, arbitrary: fc.record({ traceId: hex(16), spanId: fc.oneof(hex(8), fc.constant('')) }) });
  const record = fc.record({
    owner,
    eventName: fc.constantFrom(...EVENT_NAMES),
    time: u64Nanos,
    body: fc.option(fc.oneof(attributeValue, deepDepth.map(deepValue), fc.record({ content: hostileText, role: role }), fc.record({ message: fc.record({ role, content: hostileText }), index: fc.nat(3) })), { nil: undefined }),
    attributes: fc.oneof(genaiAttributes, fc.dictionary(fc.constantFrom('event.name', 'gen_ai.system', 'content'), attributeValue, { maxKeys: 2 })),
  });
  return fc.array(record, { maxLength: 6 }).map((records) => ({
    traces,
    logs: {
      resourceLogs: [
        {
          resource: { attributes: keyValues({ 'service.name': 'fuzz' }) },
          scopeLogs: [
            {
              scope: { name: 'fuzz-logs' },
              logRecords: records.map((r) => ({
                timeUnixNano: r.time.toString(),
                traceId: r.owner.traceId,
                ...(r.owner.spanId ? { spanId: r.owner.spanId } : {}),
                ...(r.eventName ? { eventName: r.eventName } : {}),
                ...(r.body !== undefined ? { body: safeAnyValue(r.body) } : {}),
                attributes: keyValues(r.attributes),
              })),
            },
          ],
        },
      ],
    },
  }));
});
