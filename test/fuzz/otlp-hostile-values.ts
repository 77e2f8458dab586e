import fc from 'fast-check';

// The hostile parts of generated OTLP exports (otlp-arbitraries.ts puts them together): text and
// numbers of every odd kind, attribute values, GenAI attributes of each convention family, and
// timestamp, enum and count fields as OTLP/JSON or, `portable`, as both encodings may carry them.

const MIN_NANOS = 1_577_836_800_000_000_000n; // 2020-01-01
const SPAN_NANOS = 220_000_000_000_000_000n; // about 7 years
export const U64_MAX = 2n ** 64n - 1n;

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
export const oddJsonNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000_000 }),
  fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e300, -1e300, 0.5, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const oddNumber: fc.Arbitrary<number | bigint> = fc.oneof({ weight: 4, arbitrary: oddJsonNumber }, { weight: 1, arbitrary: fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n) });

// Random values stay shallow (they are many, and cost time); deep ones come from `deepValue`.
const RANDOM_VALUE_DEPTH = 4;

/** Plain attribute values (anyValue turns them into AnyValue), nested at most RANDOM_VALUE_DEPTH. */
export const attributeValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: RANDOM_VALUE_DEPTH },
    hostileText,
    oddNumber,
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;

export const hex = (bytes: number): fc.Arbitrary<string> => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const nanos = fc.bigInt({ min: 0n, max: SPAN_NANOS }).map((d) => MIN_NANOS + d);

// A few shared ids, so that traces of one export meet in a session.
const conversationId = fc.constantFrom('conv-1', 'conv-2');

export const role = fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'model', '', 'ROBOT');

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
export const genaiAttributes: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
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

export const legacyEvents = fc.array(
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
export type TimeField = { u64: bigint } | { json: unknown };

export const u64Nanos: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 24, arbitrary: nanos },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 2n ** 63n, U64_MAX, 10n ** 19n) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: U64_MAX }) },
);

export const JSON_ONLY_TIMES: unknown[] = [
  -1, -1_700_000_000_000_000_000, 1.5, 1e30, 1e300, 2 ** 64, 1e19, -0, '18446744073709551616', '123456789012345678901', '-5', '1e30', '1.5', '0x10', '', ' 17', 'NaN',
  '0001700000000000000000', true, {}, [], null,
];

export function timeField(portable: boolean): fc.Arbitrary<TimeField> {
  const u64 = u64Nanos.map((v) => ({ u64: v }));
  return portable ? u64 : fc.oneof({ weight: 16, arbitrary: u64 }, { weight: 1, arbitrary: fc.constantFrom(...JSON_ONLY_TIMES).map((v) => ({ json: v })) });
}

/** A uint64 in OTLP/JSON: a decimal string, or a number when that is exact. */
export function timeJson(t: TimeField, asNumber: boolean): unknown {
  if ('json' in t) return t.json;
  return asNumber && t.u64 <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(t.u64) : t.u64.toString();
}

/** An int32 enum (span kind, status code): known values mostly, any int32, and in JSON names, out-of-range numbers, other types. */
export function enumField(known: number[], names: string[], portable: boolean): fc.Arbitrary<unknown> {
  const int32 = fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.constantFrom(-1, 99, 2 ** 31 - 1, -(2 ** 31)) });
  if (portable) return int32;
  return fc.oneof({ weight: 10, arbitrary: int32 }, { weight: 1, arbitrary: fc.constantFrom(...names, 'NOT_A_NAME', '3', '-1', 2 ** 31, -(2 ** 31) - 1, 1e308, 1.5, true, {}, 'x') });
}

/** A uint32 count (droppedAttributesCount): absent mostly, and in JSON negative, fractional, 2^32, other types. */
export function countField(portable: boolean): fc.Arbitrary<unknown> {
  const uint32 = fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 2 ** 32 - 1) });
  if (portable) return uint32;
  return fc.oneof({ weight: 10, arbitrary: uint32 }, { weight: 1, arbitrary: fc.constantFrom(-1, 2 ** 32, 1.5, '7', 'x', 1e308, false, []) });
}

/** Nesting depths around the collector's limit of 64 and past it (deeper still: decode.test.ts). */
export const deepDepth = fc.oneof(fc.integer({ min: 61, max: 67 }), fc.constantFrom(1, 100, 300));
