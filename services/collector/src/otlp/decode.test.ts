import Long from 'long';
import { describe, expect, it } from 'vitest';
import { opentelemetry } from '../generated/otlp.js';
import {
  deepAnyValueJson,
  deepAnyValueProtobuf,
  deepValue,
  encodeLogsRequest,
  encodeTraceRequest,
  jsonLogsRequest,
  jsonSpan,
  jsonTraceRequest,
  traceRequestWithRawAttributes,
} from '../testing/otlp-builders.ts';
import { MAX_ANY_VALUE_DEPTH } from './any-value.ts';
import { decodeLogsRequestJson, decodeTraceRequestJson } from './decode-json.ts';
import { decodeLogsRequestProtobuf, decodeTraceRequestProtobuf } from './decode-protobuf.ts';
import { DecodeError } from './types.ts';

const attributes = {
  s: 'text',
  i: 42,
  d: 1.5,
  b: true,
  a: ['x', 2, false],
  kv: { inner: 'v', n: 7, nested: { deep: [1.25] } },
};

const expectedSpan = {
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  parentSpanId: '1111111111111111',
  name: 'chat gpt-4o',
  kind: 3,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000001000000000',
  attributes,
  droppedAttributesCount: 3,
  events: [{ name: 'exception', timeUnixNano: '1700000000500000000', attributes: { 'exception.message': 'boom' } }],
  status: { code: 2, message: 'failed' },
};

const spec = {
  parentSpanId: '1111111111111111',
  attributes,
  droppedAttributesCount: 3,
  events: [{ name: 'exception', attributes: { 'exception.message': 'boom' } }],
  status: { code: 2, message: 'failed' },
};

describe('decoding ExportTraceServiceRequest', () => {
  it('gives the same plain objects from protobuf and from JSON', () => {
    const json = jsonTraceRequest([spec], { 'service.name': 'svc' }, { name: 'scope', version: '2' });
    const expected = { resourceSpans: [{ resource: { attributes: { 'service.name': 'svc' }, droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: 'scope', version: '2' }, spans: [expectedSpan] }] }] };
    expect(decodeTraceRequestJson(JSON.stringify(json))).toEqual(expected);
    expect(decodeTraceRequestProtobuf(encodeTraceRequest(json))).toEqual(expected);
  });

  it('keeps int64 beyond 2^53 exact (as a decimal string), in both encodings', () => {
    const big = '9007199254740993';
    const json = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5B8EFFF798038103D269B633813FC60C', spanId: 'eee19b7ec3c1b174', startTimeUnixNano: 1700000000000000000, endTimeUnixNano: '18446744073709551615', attributes: [{ key: 'big', value: { intValue: big } }, { key: 'neg', value: { intValue: '-5' } }] }] }] }] };
    const fromJson = decodeTraceRequestJson(JSON.stringify(json)).resourceSpans[0].scopeSpans[0].spans[0];
    expect(fromJson.traceId).toBe('5b8efff798038103d269b633813fc60c');
    expect(fromJson.attributes).toEqual({ big, neg: -5 });
    expect(fromJson.endTimeUnixNano).toBe('18446744073709551615');
    const pb = opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.encode({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), startTimeUnixNano: Long.fromString('18446744073709551615', true), attributes: [{ key: 'big', value: { intValue: Long.fromString(big) } }, { key: 'bytes', value: { bytesValue: Buffer.from('hi') } }] }] }] }],
    }).finish();
    const fromPb = decodeTraceRequestProtobuf(pb).resourceSpans[0].scopeSpans[0].spans[0];
    expect(fromPb.startTimeUnixNano).toBe('18446744073709551615');
    expect(fromPb.attributes).toEqual({ big, bytes: 'aGk=' });
    expect(fromPb.traceId).toBe('01010101010101010101010101010101');
    expect(fromPb.endTimeUnixNano).toBe('0');
  });

  it('ignores unknown JSON fields, accepts enum names and omitted defaults', () => {
    const req = decodeTraceRequestJson(
      JSON.stringify({ extra: 1, resourceSpans: [{ schemaUrl: 'x', scopeSpans: [{ spans: [{ traceId: 'ab', kind: 'SPAN_KIND_SERVER', status: { code: 'STATUS_CODE_ERROR' }, unknownField: {} }] }] }] }),
    );
    expect(req.resourceSpans[0].scopeSpans[0].spans[0]).toEqual({
      traceId: 'ab',
      spanId: '',
      parentSpanId: '',
      name: '',
      kind: 2,
      startTimeUnixNano: '0',
      endTimeUnixNano: '0',
      attributes: {},
      droppedAttributesCount: 0,
      events: [],
      status: { code: 2, message: '' },
    });
    // The resource's schema URL stands for the scope's when the scope gives none.
    expect(req.resourceSpans[0].scopeSpans[0].scope).toEqual({ name: '', version: '', schemaUrl: 'x' });
  });

  it("carries the scope's schema URL, else the resource's, in JSON and protobuf alike", () => {
    const body = {
      resourceSpans: [
        {
          schemaUrl: 'https://opentelemetry.io/schemas/1.41.0',
          scopeSpans: [
            { schemaUrl: 'https://opentelemetry.io/schemas/gen-ai/0.1.0', scope: { name: 'a' }, spans: [] },
            { scope: { name: 'b' }, spans: [] },
          ],
        },
        { scopeSpans: [{ scope: { name: 'c' }, spans: [] }] },
      ],
    };
    const expected = [
      [{ name: 'a', version: '', schemaUrl: 'https://opentelemetry.io/schemas/gen-ai/0.1.0' }, { name: 'b', version: '', schemaUrl: 'https://opentelemetry.io/schemas/1.41.0' }],
      [{ name: 'c', version: '' }],
    ];
    const scopes = (r: { resourceSpans: Array<{ scopeSpans: Array<{ scope: unknown }> }> }) => r.resourceSpans.map((rs) => rs.scopeSpans.map((ss) => ss.scope));
    expect(scopes(decodeTraceRequestJson(JSON.stringify(body)))).toEqual(expected);
    const T = opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
    const pbBody = T.encode(body).finish();
    expect(scopes(decodeTraceRequestProtobuf(pbBody))).toEqual(expected);
  });

  it('treats an empty body as an empty request', () => {
    expect(decodeTraceRequestJson('')).toEqual({ resourceSpans: [] });
    expect(decodeTraceRequestProtobuf(new Uint8Array())).toEqual({ resourceSpans: [] });
  });

  it('throws DecodeError for garbage', () => {
    expect(() => decodeTraceRequestJson('[1,2]')).toThrow(DecodeError);
    expect(() => decodeTraceRequestJson('{"resourceSpans":[{"scopeSpans":{}}]}')).toThrow('invalid JSON ExportTraceServiceRequest: scopeSpans must be an array');
    expect(() => decodeTraceRequestProtobuf(Buffer.from([0x0a, 0x10, 0x01]))).toThrow(DecodeError);
  });
});

describe('decoding ExportLogsServiceRequest', () => {
  it('gives the same plain objects from protobuf and from JSON, with eventName and a kvlist body', () => {
    const json = jsonLogsRequest([{ eventName: 'gen_ai.choice', body: { index: 0, message: { content: 'hi' } }, attributes: { 'gen_ai.system': 'openai' } }]);
    const expected = {
      resourceLogs: [
        {
          resource: { attributes: { 'service.name': 'weather-agent' }, droppedAttributesCount: 0 },
          scopeLogs: [
            {
              scope: { name: 'test-logs', version: '' },
              logRecords: [
                {
                  timeUnixNano: '1700000000600000000',
                  observedTimeUnixNano: '0',
                  eventName: 'gen_ai.choice',
                  body: { index: 0, message: { content: 'hi' } },
                  attributes: { 'gen_ai.system': 'openai' },
                  droppedAttributesCount: 0,
                  traceId: '5b8efff798038103d269b633813fc60c',
                  spanId: 'eee19b7ec3c1b174',
                },
              ],
            },
          ],
        },
      ],
    };
    expect(decodeLogsRequestJson(JSON.stringify(json))).toEqual(expected);
    expect(decodeLogsRequestProtobuf(encodeLogsRequest(json))).toEqual(expected);
  });
});

/** Decodes [a valid span, the valid span with `patch` applied] as OTLP/JSON and returns the second. */
function patchedSpan(patch: Record<string, unknown>) {
  const good = jsonSpan({ spanId: '1111111111111111' });
  const req = { resourceSpans: [{ scopeSpans: [{ spans: [good, { ...jsonSpan({}), ...patch }] }] }] };
  const spans = decodeTraceRequestJson(JSON.stringify(req)).resourceSpans[0].scopeSpans[0].spans;
  expect(spans[0].invalid).toBeUndefined();
  return spans[1];
}

const attr = (value: unknown) => ({ attributes: [{ key: 'k', value }] });

describe('OTLP/JSON: a malformed field rejects its span alone, it never becomes a default', () => {
  it.each([
    ['startTimeUnixNano', { startTimeUnixNano: 'abc' }, 'startTimeUnixNano "abc" is not a decimal integer'],
    ['negative', { startTimeUnixNano: '-5' }, 'startTimeUnixNano "-5" is negative'],
    ['21 digits', { startTimeUnixNano: '100000000000000000000' }, 'startTimeUnixNano "100000000000000000000" is over 2^64-1'],
    ['2^64', { endTimeUnixNano: '18446744073709551616' }, 'endTimeUnixNano "18446744073709551616" is over 2^64-1'],
    ['1e30 as a number', { startTimeUnixNano: 1e30 }, 'startTimeUnixNano 1e+30 is over 2^64-1'],
    ['a fraction', { startTimeUnixNano: 1.5 }, 'startTimeUnixNano 1.5 is not an integer'],
    ['a negative number', { endTimeUnixNano: -1 }, 'endTimeUnixNano -1 is negative'],
    ['exponent text', { endTimeUnixNano: '1e18' }, 'endTimeUnixNano "1e18" is not a decimal integer'],
    ['a boolean', { startTimeUnixNano: true }, 'startTimeUnixNano true is not a decimal integer'],
    ['an event time', { events: [{ name: 'e', timeUnixNano: '-1' }] }, 'event "e" timeUnixNano "-1" is negative'],
    ['an unknown kind name', { kind: 'SPAN_KIND_BOGUS' }, 'kind "SPAN_KIND_BOGUS" is not a valid enum value'],
    ['a kind named after an Object method', { kind: 'toString' }, 'kind "toString" is not a valid enum value'],
    ['a kind past int32', { kind: 1e20 }, 'kind 100000000000000000000 is not a valid enum value'],
    ['a fractional status code', { status: { code: 2.5 } }, 'status.code 2.5 is not a valid enum value'],
    ['a status that is not an object', { status: 5 }, 'status must be an object'],
    ['a negative droppedAttributesCount', { droppedAttributesCount: -1 }, 'droppedAttributesCount -1 is not an unsigned 32-bit integer'],
    ['a name that is not a string', { name: 5 }, 'name 5 is not a string'],
    ['attributes that are not an array', { attributes: {} }, 'attributes must be an array'],
    ['intValue text', attr({ intValue: 'abc' }), 'attribute "k": intValue "abc" is not a 64-bit integer'],
    ['intValue past int64', attr({ intValue: '9223372036854775808' }), 'attribute "k": intValue "9223372036854775808" is not a 64-bit integer'],
    ['intValue fraction', attr({ intValue: 1.5 }), 'attribute "k": intValue 1.5 is not a 64-bit integer'],
    ['doubleValue text', attr({ doubleValue: 'abc' }), 'attribute "k": doubleValue "abc" is not a number'],
    ['boolValue text', attr({ boolValue: 'true' }), 'attribute "k": boolValue "true" is not a boolean'],
    ['stringValue number', attr({ stringValue: 5 }), 'attribute "k": stringValue 5 is not a string'],
    ['bytesValue not base64', attr({ bytesValue: '***' }), 'attribute "k": bytesValue "***" is not base64'],
    ['a value that is not an AnyValue', attr('x'), 'attribute "k": "x" is not an AnyValue object'],
    ['an array of the wrong shape', attr({ arrayValue: { values: 1 } }), 'attribute "k": arrayValue.values must be an array'],
  ])('%s', (_name, patch, reason) => {
    expect(patchedSpan(patch).invalid).toBe(reason);
  });

  it('rejects every span of a resource whose attributes are malformed', () => {
    const req = jsonTraceRequest([{}, { spanId: '1111111111111111' }]) as { resourceSpans: Array<{ resource: unknown }> };
    req.resourceSpans[0].resource = { attributes: [{ key: 'r', value: { intValue: 'x' } }] };
    const spans = decodeTraceRequestJson(JSON.stringify(req)).resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((s) => [s.spanId, s.invalid])).toEqual([
      ['eee19b7ec3c1b174', 'resource attribute "r": intValue "x" is not a 64-bit integer'],
      ['1111111111111111', 'resource attribute "r": intValue "x" is not a 64-bit integer'],
    ]);
  });

  it('accepts what proto3 JSON allows, as the protobuf decoder gives it', () => {
    const span = patchedSpan({
      startTimeUnixNano: '0001700000000000000000',
      endTimeUnixNano: 1700000001000000000,
      kind: '3',
      attributes: [
        { key: 'nan', value: { doubleValue: 'NaN' } },
        { key: 'inf', value: { doubleValue: '-Infinity' } },
        { key: 'text', value: { doubleValue: '2.5e3' } },
        { key: 'min', value: { intValue: '-9223372036854775808' } },
        { key: 'urlsafe', value: { bytesValue: '-_8=' } },
        { key: '__proto__', value: { stringValue: 'own key' } },
      ],
    });
    expect(span.invalid).toBeUndefined();
    expect([span.startTimeUnixNano, span.endTimeUnixNano, span.kind]).toEqual(['1700000000000000000', '1700000001000000000', 3]);
    // `__proto__` is an attribute like any other: an own key, not a prototype change.
    expect(Object.entries(span.attributes)).toEqual([['nan', NaN], ['inf', -Infinity], ['text', 2500], ['min', '-9223372036854775808'], ['urlsafe', '+/8='], ['__proto__', 'own key']]);
    expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype);
  });

  it('rejects a log record with a malformed field alone', () => {
    const req = jsonLogsRequest([{ body: 'ok' }, { timeUnixNano: '-1', body: 'bad' }, { body: 'x' }]) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<Record<string, unknown>> }> }> };
    req.resourceLogs[0].scopeLogs[0].logRecords[2].body = { intValue: 'x' };
    const records = decodeLogsRequestJson(JSON.stringify(req)).resourceLogs[0].scopeLogs[0].logRecords;
    expect(records.map((r) => r.invalid)).toEqual([undefined, 'timeUnixNano "-1" is negative', 'body: intValue "x" is not a 64-bit integer']);
  });
});

describe(`AnyValue nesting: one limit (${MAX_ANY_VALUE_DEPTH}) in both encodings`, () => {
  function decodeBoth(depth: number) {
    const built = traceRequestWithRawAttributes(jsonTraceRequest([{ spanId: '1111111111111111' }, {}]), [{ span: 1, key: 'deep', json: deepAnyValueJson(depth), protobuf: deepAnyValueProtobuf(depth) }]);
    const fromJson = decodeTraceRequestJson(built.json).resourceSpans[0].scopeSpans[0].spans;
    const fromPb = decodeTraceRequestProtobuf(built.protobuf).resourceSpans[0].scopeSpans[0].spans;
    return { fromJson, fromPb };
  }

  it.each([1, 2, 47, 48, MAX_ANY_VALUE_DEPTH])('accepts %i levels, with the same value from JSON and protobuf', (depth) => {
    const { fromJson, fromPb } = decodeBoth(depth);
    expect(fromJson[1].invalid).toBeUndefined();
    expect(fromJson[1].attributes.deep).toEqual(deepValue(depth));
    expect(fromPb).toEqual(fromJson);
  });

  it.each([MAX_ANY_VALUE_DEPTH + 1, 3_160, 10_000])('rejects %i levels in the span alone, with the same reason in both encodings', (depth) => {
    const { fromJson, fromPb } = decodeBoth(depth);
    for (const spans of [fromJson, fromPb]) {
      expect(spans[0].invalid).toBeUndefined();
      expect(spans[1].invalid).toBe(`attribute "deep": nested deeper than ${MAX_ANY_VALUE_DEPTH} arrays/kvlists`);
    }
  });

  it('rejects 200,000 levels of JSON without exhausting the stack', () => {
    const text = JSON.stringify(jsonTraceRequest([{ attributes: { deep: 'x' } }])).replace('{"stringValue":"x"}', () => deepAnyValueJson(200_000));
    expect(decodeTraceRequestJson(text).resourceSpans[0].scopeSpans[0].spans[0].invalid).toBe(`attribute "deep": nested deeper than ${MAX_ANY_VALUE_DEPTH} arrays/kvlists`);
  });

  it('rejects undecodable nested protobuf bytes in the span alone', () => {
    const garbage = Buffer.from([0x2a, 0x03, 0x0a, 0x05, 0xff]);
    const built = traceRequestWithRawAttributes(jsonTraceRequest([{ spanId: '1111111111111111' }, {}]), [{ span: 1, key: 'bad', json: '{}', protobuf: garbage }]);
    const spans = decodeTraceRequestProtobuf(built.protobuf).resourceSpans[0].scopeSpans[0].spans;
    expect(spans[0].invalid).toBeUndefined();
    expect(spans[1].invalid).toMatch(/^attribute "bad": undecodable arrayValue: index out of range/);
  });

  it('applies the limit to log bodies and event attributes too', () => {
    const logs = jsonLogsRequest([{ body: deepValue(MAX_ANY_VALUE_DEPTH) }]);
    expect(decodeLogsRequestJson(JSON.stringify(logs)).resourceLogs[0].scopeLogs[0].logRecords[0].invalid).toBeUndefined();
    const tooDeep = JSON.stringify(jsonLogsRequest([{ body: 'x' }])).replace('{"stringValue":"x"}', () => deepAnyValueJson(MAX_ANY_VALUE_DEPTH + 1));
    expect(decodeLogsRequestJson(tooDeep).resourceLogs[0].scopeLogs[0].logRecords[0].invalid).toBe(`body: nested deeper than ${MAX_ANY_VALUE_DEPTH} arrays/kvlists`);
    const events = JSON.stringify(jsonTraceRequest([{ events: [{ name: 'exception', attributes: { deep: 'x' } }] }])).replace('{"stringValue":"x"}', () => deepAnyValueJson(MAX_ANY_VALUE_DEPTH + 1));
    expect(decodeTraceRequestJson(events).resourceSpans[0].scopeSpans[0].spans[0].invalid).toBe(`event "exception" attribute "deep": nested deeper than ${MAX_ANY_VALUE_DEPTH} arrays/kvlists`);
  });
});

describe('protobuf spans decoded one at a time', () => {
  const spans = Array.from({ length: 6 }, (_, i) => jsonSpan({ spanId: (i + 1).toString(16).padStart(16, '0'), attributes: { i, text: `span ${i}`, kv: { a: [i] } }, events: [{ name: 'e', attributes: { n: i } }] }));
  const traces = encodeTraceRequest({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: spans.slice(0, 3) }, { scope: { name: 't' }, spans: spans.slice(3) }] }] });
  const logs = encodeLogsRequest(jsonLogsRequest(Array.from({ length: 5 }, (_, i) => ({ body: { turn: i }, eventName: `e${i}` }))));

  /** What decoding the whole message at once (protobufjs, every span eagerly) answers: its error message, or null. */
  function wholeDecodeError(decode: () => unknown): string | null {
    try {
      decode();
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  // Every single-byte change and every cut of the body: the lazy decode accepts exactly the bodies
  // the whole decode accepts, and refuses the others with the error the whole decode meets first.
  const damaged = (body: Uint8Array): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (let i = 0; i < body.length; i++) {
      for (const value of [0x00, 0x08, 0x0a, 0x7f, 0xff, body[i] ^ 0x01]) {
        const copy = Uint8Array.from(body);
        copy[i] = value;
        out.push(copy);
      }
      out.push(body.subarray(0, i));
    }
    return out;
  };

  it('a trace export: the same spans, or the same error, as a whole decode', () => {
    let refused = 0;
    for (const body of damaged(traces)) {
      const whole = wholeDecodeError(() => opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(Buffer.from(body)));
      const lazy = wholeDecodeError(() => decodeTraceRequestProtobuf(body));
      expect(lazy).toBe(whole === null ? null : `invalid protobuf ExportTraceServiceRequest: ${whole}`);
      if (whole !== null) refused++;
    }
    expect(refused).toBeGreaterThan(1000);
  });

  it('a logs export: the same records, or the same error, as a whole decode', () => {
    for (const body of damaged(logs)) {
      const whole = wholeDecodeError(() => opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest.decode(Buffer.from(body)));
      const lazy = wholeDecodeError(() => decodeLogsRequestProtobuf(body));
      expect(lazy).toBe(whole === null ? null : `invalid protobuf ExportLogsServiceRequest: ${whole}`);
    }
  });
});
