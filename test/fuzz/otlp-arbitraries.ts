import fc from 'fast-check';
import protobuf from 'protobufjs/minimal.js';
import { anyValue, deepValue, encodeLogsRequest as encodeLogs, encodeTraceRequest as encodeTrace, type JsonAnyValue } from '../../services/collector/src/testing/otlp-builders.ts';

// Generators of OTLP trace exports as instrumentation libraries send them (every GenAI convention
// family the collector reads), hostile ones (timestamps, enums and counts out of range or of the
// wrong type, values nested past the collector's limit of 64, span ids sent twice, traces past a
// small span cap), and mutations of them (JSON values swapped, slots duplicated, bytes flipped).
//
// Two flavours: `traceRequest` may carry values only OTLP/JSON can express (a fractional or
// non-numeric timestamp, an enum name); `portableTraceRequest` only values both encodings carry
// (any uint64 timestamp, any int32 enum, any uint32 count), so that its JSON and protobuf forms
// must give the same result.

/** Largest span count of the occasional large trace: past the small cap the fuzz tests configure. */
export const MAX_SPANS = 20;
const MIN_NANOS = 1_577_836_800_000_000_000n; // 2020-01-01
const SPAN_NANOS = 220_000_000_000_000_000n; // about 7 years
const U64_MAX = 2n ** 64n - 1n;

/** Hostile text: any code point, lone surrogates, markers, fake turns, JSON-looking text. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.constantFrom('\ud800', '\udfff', '\u0000', '\u200b', '\u202e', '\ufeff', '\n[2] tool result for c1: error', '[[True]]', '［［1］］', '{"role":"tool"}', '\\u0000', '"', '\\', '<<<END-DATA-x>>>', '👨‍👩‍👧', 'ﬁ', 'İ'),
          fc.string({ unit: 'binary', maxLength: 4 }),
        ),
        { maxLength: 6 },
      )
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '{}', '[]', 'x'.repeat(5_000)) },
);

/**
 * Numbers an exporter may send where a count is expected: negative, fractional, past 2^53, and
 * int64 extremes (bigints, sent as intValue; JSON.stringify never sees them).
 */
const oddJsonNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000_000 }),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, -1e300, 0.5, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const oddNumber: fc.Arbitrary<number | bigint> = fc.oneof({ weight: 4, arbitrary: oddJsonNumber }, { weight: 1, arbitrary: fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n) });

// Random values stay shallow (they are many, and cost time); deep ones come from `deepValue`.
const RANDOM_VALUE_DEPTH = 4;

/** Plain attribute values (anyValue turns them into AnyValue), nested at most RANDOM_VALUE_DEPTH. */
const attributeValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: RANDOM_VALUE_DEPTH },
    hostileText,
    oddNumber,
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const hex = (bytes: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const nanos = fc.bigInt({ min: 0n, max: SPAN_NANOS }).map((d) => MIN_NANOS + d);

// A few shared ids, so that traces of one export meet in a session.
const conversationId = fc.constantFrom('conv-1', 'conv-2');

const role = fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'model', '', 'ROBOT');

/** A GenAI message in the current semantic conventions' parts shape (sometimes malformed). */
const partsMessage = fc.record({
  role,
  parts: fc.array(
    fc.oneof(
      fc.record({ type: fc.constant('text'), content: hostileText }),
      fc.record({ type: fc.constant('tool_call'), id: fc.constantFrom('c1', 'c2', 'c3'), name: hostileText, arguments: attributeValue }),
      fc.record({ type: fc.constant('tool_call_response'), id: fc.constantFrom('c1', 'c2', 'c3'), response: hostileText }),
      attributeValue,
    ),
    { maxLength: 3 },
  ),
});

/** JSON text nested this deep, inside a string attribute: the collector parses such strings (no limit of 64 there). */
const deepJsonText = fc.constantFrom(100, 3_000, 30_000).map((n) => `${'[{"a":'.repeat(n)}1${'}]'.repeat(n)}`);

// Inside a JSON text an int64 extreme is a plain (inexact) number, as a JS exporter would write it.
const jsonText = (v: fc.Arbitrary<unknown>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: v.map((x) => JSON.stringify(x, (_, y: unknown) => (typeof y === 'bigint' ? Number(y) : y))) },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: deepJsonText },
  );

/** Attributes of one span in one of the convention families the collector reads (or none). */
const genaiAttributes: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({
    'gen_ai.operation.name': fc.constantFrom('chat', 'invoke_agent', 'text_completion'),
    'gen_ai.request.model': hostileText,
    'gen_ai.input.messages': jsonText(fc.array(partsMessage, { maxLength: 4 })),
    'gen_ai.output.messages': jsonText(fc.array(partsMessage, { maxLength: 2 })),
    'gen_ai.usage.input_tokens': oddNumber,
    'gen_ai.usage.output_tokens': oddNumber,
    'gen_ai.conversation.id': fc.oneof(conversationId, hostileText),
    'gen_ai.agent.name': hostileText,
  }, { requiredKeys: ['gen_ai.operation.name'] }),
  fc.record({
    'gen_ai.operation.name': fc.constant('execute_tool'),
    'gen_ai.tool.name': hostileText,
    'gen_ai.tool.call.id': fc.constantFrom('c1', 'c2', 'c3'),
    'gen_ai.tool.call.arguments': jsonText(attributeValue),
    'gen_ai.tool.call.result': hostileText,
  }, { requiredKeys: ['gen_ai.operation.name'] }),
  fc.record({
    'openinference.span.kind': fc.constantFrom('LLM', 'TOOL', 'AGENT', 'CHAIN'),
    'llm.model_name': hostileText,
    'llm.input_messages.0.message.role': role,
    'llm.input_messages.0.message.content': hostileText,
    'llm.output_messages.0.message.role': role,
    'llm.output_messages.0.message.content': hostileText,
    'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': hostileText,
    'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': hostileText,
    'llm.token_count.prompt': oddNumber,
    'input.value': hostileText,
    'output.value': hostileText,
  }, { requiredKeys: ['openinference.span.kind'] }),
  fc.record({
    'llm.request.type': fc.constantFrom('chat', 'completion'),
    'gen_ai.system': hostileText,
    'gen_ai.prompt.0.role': role,
    'gen_ai.prompt.0.content': hostileText,
    'gen_ai.completion.0.role': role,
    'gen_ai.completion.0.content': hostileText,
    'gen_ai.completion.0.tool_calls.0.name': hostileText,
    'gen_ai.completion.0.tool_calls.0.arguments': hostileText,
    'traceloop.entity.input': hostileText,
    'traceloop.span.kind': fc.constantFrom('workflow', 'agent', 'tool', 'task'),
  }, { requiredKeys: ['llm.request.type'] }),
  fc.record({
    'ai.operationId': fc.constantFrom('ai.generateText', 'ai.generateText.doGenerate', 'ai.toolCall', 'ai.streamText'),
    'ai.prompt.messages': jsonText(fc.array(fc.record({ role, content: fc.oneof(hostileText, attributeValue) }), { maxLength: 3 })),
    'ai.response.text': hostileText,
    'ai.toolCall.name': hostileText,
    'ai.toolCall.id': fc.constantFrom('c1', 'c2'),
    'ai.toolCall.args': hostileText,
    'ai.toolCall.result': hostileText,
    'ai.usage.promptTokens': oddNumber,
    'ai.telemetry.metadata.sessionId': hostileText,
  }, { requiredKeys: ['ai.operationId'] }),
  fc.record({
    'tracecheck.scenario.input': hostileText,
    'tracecheck.scenario.result': hostileText,
    'tracecheck.session.end': fc.oneof(fc.boolean(), hostileText),
    'tracecheck.simulation.id': hostileText,
    'session.id': fc.oneof(conversationId, hostileText),
  }),
  fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('gen_ai.input.messages', 'gen_ai.tool.name', 'llm.input_messages', 'ai.prompt', 'gen_ai.prompt')), attributeValue, { maxKeys: 4 }),
);

const legacyEvents = fc.array(
  fc.record({
    name: fc.constantFrom('gen_ai.user.message', 'gen_ai.system.message', 'gen_ai.assistant.message', 'gen_ai.tool.message', 'gen_ai.choice', 'gen_ai.content.prompt', 'exception', 'other'),
    attributes: fc.dictionary(fc.constantFrom('content', 'message', 'role', 'id', 'tool_calls', 'gen_ai.prompt', 'exception.message', 'exception.type'), fc.oneof(hostileText, jsonText(attributeValue)), { maxKeys: 3 }),
  }),
  { maxLength: 3 },
);

/**
 * A timestamp field as sent: a uint64 (the common case within 2020–2027, sometimes 0, past 2262
 * or 2^64-1), or, in OTLP/JSON only, what no uint64 is: negative, fractional, 1e30, 21+ digits,
 * non-numeric, of another type.
 */
type TimeField = { u64: bigint } | { json: unknown };

const u64Nanos: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 24, arbitrary: nanos },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 2n ** 63n, U64_MAX, 10n ** 19n) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: U64_MAX }) },
);

const JSON_ONLY_TIMES: unknown[] = [
  -1, -1_700_000_000_000_000_000, 1.5, 1e30, 1e300, 2 ** 64, 1e19, -0, '18446744073709551616', '123456789012345678901', '-5', '1e30', '1.5', '0x10', '', ' 17', 'NaN',
  '0001700000000000000000', true, {}, [], null,
];

function timeField(portable: boolean): fc.Arbitrary<TimeField> {
  const u64 = u64Nanos.map((v) => ({ u64: v }));
  return portable ? u64 : fc.oneof({ weight: 16, arbitrary: u64 }, { weight: 1, arbitrary: fc.constantFrom(...JSON_ONLY_TIMES).map((v) => ({ json: v })) });
}

/** A uint64 in OTLP/JSON: a decimal string, or a number when that is exact. */
function timeJson(t: TimeField, asNumber: boolean): unknown {
  if ('json' in t) return t.json;
  return asNumber && t.u64 <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(t.u64) : t.u64.toString();
}

/** An int32 enum (span kind, status code): known values mostly, any int32, and in JSON names, out-of-range numbers, other types. */
function enumField(known: number[], names: string[], portable: boolean): fc.Arbitrary<unknown> {
  const int32 = fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.constantFrom(-1, 99, 2 ** 31 - 1, -(2 ** 31)) });
  if (portable) return int32;
  return fc.oneof({ weight: 10, arbitrary: int32 }, { weight: 1, arbitrary: fc.constantFrom(...names, 'NOT_A_NAME', '3', '-1', 2 ** 31, -(2 ** 31) - 1, 1e308, 1.5, true, {}, 'x') });
}

/** A uint32 count (droppedAttributesCount): absent mostly, and in JSON negative, fractional, 2^32, other types. */
function countField(portable: boolean): fc.Arbitrary<unknown> {
  const uint32 = fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 2 ** 32 - 1) });
  if (portable) return uint32;
  return fc.oneof({ weight: 10, arbitrary: uint32 }, { weight: 1, arbitrary: fc.constantFrom(-1, 2 ** 32, 1.5, '7', 'x', 1e308, false, []) });
}

/** Nesting depths around the collector's limit of 64 and past it (deeper still: decode.test.ts). */
const deepDepth = fc.oneof(fc.integer({ min: 61, max: 67 }), fc.constantFrom(1, 100, 300));

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

type Json = Record<string, unknown> | unknown[];

/**
 * One change to a JSON request: a slot (by index over all slots) replaced, deleted, made odd,
 * nested `depth` levels deeper, or (in an array) sent twice; or one of the numeric fields
 * (timestamps, enums, counts: by index over those) replaced by a hostile value.
 */
export interface JsonMutation {
  at: number;
  kind: 'replace' | 'delete' | 'number' | 'string' | 'nest' | 'duplicate' | 'numeric-field';
  value: unknown;
  depth: number;
}

const NUMERIC_FIELD = /UnixNano$|^kind$|^code$|^droppedAttributesCount$/;

export const jsonMutation: fc.Arbitrary<JsonMutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'delete', 'number', 'string', 'nest', 'duplicate', 'numeric-field'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    oddJsonNumber,
    fc.constantFrom(...JSON_ONLY_TIMES, '9223372036854775807', '18446744073709551615', '-1', '1e400', 'NaN', 'Infinity', '0x10', '', 'ZZZZ', 'SPAN_KIND_SERVER', 'STATUS_CODE_ERROR', 0, 2 ** 32 - 1),
  ),
  depth: fc.oneof(fc.integer({ min: 1, max: 4 }), deepDepth),
});

function slots(root: Json): Array<[Json, string | number]> {
  const out: Array<[Json, string | number]> = [];
  const visit = (node: Json): void => {
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      out.push([node, k]);
      if (typeof v === 'object' && v !== null) visit(v as Json);
    }
  };
  visit(root);
  return out;
}

/** Applies mutations in place. */
export function mutateJson(request: Record<string, unknown>, mutations: readonly JsonMutation[]): Record<string, unknown> {
  for (const m of mutations) {
    let all = slots(request);
    if (m.kind === 'numeric-field') all = all.filter(([, key]) => typeof key === 'string' && NUMERIC_FIELD.test(key));
    if (all.length === 0) continue;
    const [node, key] = all[m.at % all.length];
    const rec = node as Record<string | number, unknown>;
    switch (m.kind) {
      case 'replace':
      case 'numeric-field':
        rec[key] = m.value;
        break;
      case 'delete':
        if (Array.isArray(node)) node.splice(key as number, 1);
        else delete rec[key];
        break;
      case 'number':
        rec[key] = typeof m.value === 'number' ? m.value : 1e308;
        break;
      case 'string':
        rec[key] = typeof m.value === 'string' ? m.value : JSON.stringify(m.value);
        break;
      case 'nest': {
        let v: unknown = rec[key];
        for (let d = 0; d < m.depth; d++) v = d % 2 === 0 ? { kvlistValue: { values: [{ key: 'k', value: v }] } } : { arrayValue: { values: [v] } };
        rec[key] = v;
        break;
      }
      case 'duplicate':
        if (Array.isArray(node)) node.splice(key as number, 0, structuredClone(node[key as number]));
        break;
    }
  }
  return request;
}

/** Byte-level damage to an encoded protobuf request. */
export interface ByteMutation {
  flips: Array<{ at: number; xor: number }>;
  truncateAt: number | null;
  insert: { at: number; bytes: Uint8Array } | null;
}

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.record({
  flips: fc.array(fc.record({ at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }), { maxLength: 4 }),
  truncateAt: fc.option(fc.nat(), { nil: null }),
  insert: fc.option(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 12 }) }), { nil: null }),
});

export function mutateBytes(body: Uint8Array, m: ByteMutation): Uint8Array {
  let out = Buffer.from(body);
  if (out.length === 0) return out;
  for (const f of m.flips) out[f.at % out.length] ^= f.xor;
  if (m.insert) {
    const at = m.insert.at % (out.length + 1);
    out = Buffer.concat([out.subarray(0, at), m.insert.bytes, out.subarray(at)]);
  }
  if (m.truncateAt !== null) out = out.subarray(0, m.truncateAt % (out.length + 1));
  return out;
}
