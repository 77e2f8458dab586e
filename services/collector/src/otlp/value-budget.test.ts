import { describe, expect, it } from 'vitest';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonSpan, jsonTraceRequest, kvs } from '../testing/otlp-builders.ts';
import { MAX_VALUES_PER_ITEM } from './any-value.ts';
import { decodeLogsRequestJson, decodeTraceRequestJson } from './decode-json.ts';
import { decodeLogsRequestProtobuf, decodeTraceRequestProtobuf } from './decode-protobuf.ts';
import { countField } from './proto-scan.ts';

// Issue 23: one export with 100,000 attributes or a 200,000-key kvlist blocked the collector
// 390–480 ms. Each span (log record, resource) carries at most MAX_VALUES_PER_ITEM values in all,
// counted before they are converted (in protobuf, before protobufjs decodes the span), in both
// encodings alike; a span over it is rejected alone with the reason.

const REASON = `more than ${MAX_VALUES_PER_ITEM} values (attributes, events, links and entries of nested arrays and kvlists together)`;

const many = (n: number, value: (i: number) => unknown = (i) => `v${i}`): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value(i)]));

/** A valid span, then the one under test, then another valid span; decoded from JSON and from protobuf. */
function decodeBoth(span: Record<string, unknown>) {
  const request = {
    resourceSpans: [{ resource: { attributes: kvs({ 'service.name': 'svc' }) }, scopeSpans: [{ scope: { name: 's' }, spans: [jsonSpan({ spanId: '1111111111111111' }), span, jsonSpan({ spanId: '3333333333333333' })] }] }],
  };
  const fromJson = decodeTraceRequestJson(JSON.stringify(request)).resourceSpans[0].scopeSpans[0].spans;
  const fromPb = decodeTraceRequestProtobuf(encodeTraceRequest(request)).resourceSpans[0].scopeSpans[0].spans;
  for (const spans of [fromJson, fromPb]) {
    expect(spans.map((s) => s.spanId)).toEqual(['1111111111111111', '2222222222222222', '3333333333333333']);
    expect([spans[0].invalid, spans[2].invalid]).toEqual([undefined, undefined]);
  }
  return { fromJson, fromPb };
}

/** attributes + events + links + their attributes = `total`, one kvlist attribute carrying `nested` entries. */
function spanWithValues(total: number, nested: number): Record<string, unknown> {
  const events = [{ name: 'e', attributes: { a: 1, b: 2 } }];
  const links = [{ attributes: kvs({ c: 'x' }) }];
  const plain = total - nested - 1 - (1 + 2) - (1 + 1);
  const span = jsonSpan({ spanId: '2222222222222222', attributes: { ...many(plain), kv: many(nested, (i) => i) }, events });
  return { ...span, links };
}

describe(`at most ${MAX_VALUES_PER_ITEM} values per span, in both encodings`, () => {
  it(`accepts exactly ${MAX_VALUES_PER_ITEM} (attributes, an event and its attributes, a link and its attribute, kvlist entries), the same from JSON and protobuf`, () => {
    const { fromJson, fromPb } = decodeBoth(spanWithValues(MAX_VALUES_PER_ITEM, 1_000));
    expect(fromJson[1].invalid).toBeUndefined();
    expect(Object.keys(fromJson[1].attributes)).toHaveLength(MAX_VALUES_PER_ITEM - 1_000 - 5);
    expect(fromPb).toEqual(fromJson);
  });

  it('rejects one more in a nested kvlist, naming the attribute', () => {
    const { fromJson, fromPb } = decodeBoth(spanWithValues(MAX_VALUES_PER_ITEM + 1, 1_000));
    for (const spans of [fromJson, fromPb]) expect(spans[1].invalid).toBe(`attribute "kv": ${REASON}`);
  });

  it('rejects one more at the top level before converting any of them', () => {
    const { fromJson, fromPb } = decodeBoth(spanWithValues(MAX_VALUES_PER_ITEM + 1, 0));
    for (const spans of [fromJson, fromPb]) {
      expect(spans[1]).toMatchObject({ traceId: '5b8efff798038103d269b633813fc60c', spanId: '2222222222222222', attributes: {}, invalid: REASON });
    }
  });

  it('the attack: a span with 100,000 attributes is rejected alone', () => {
    const { fromJson, fromPb } = decodeBoth(jsonSpan({ spanId: '2222222222222222', attributes: many(100_000) }));
    for (const spans of [fromJson, fromPb]) expect(spans[1].invalid).toBe(REASON);
  });

  it('the attack: a 200,000-key kvlist is rejected alone', () => {
    const { fromJson, fromPb } = decodeBoth(jsonSpan({ spanId: '2222222222222222', attributes: { big: many(200_000, (i) => i) } }));
    for (const spans of [fromJson, fromPb]) expect(spans[1].invalid).toBe(`attribute "big": ${REASON}`);
  });

  it('100,000 events of one attribute each are rejected too', () => {
    const events = Array.from({ length: 100_000 }, () => ({ name: 'e', attributes: { a: 1 } }));
    const { fromJson, fromPb } = decodeBoth(jsonSpan({ spanId: '2222222222222222', events }));
    for (const spans of [fromJson, fromPb]) expect(spans[1].invalid).toBe(REASON);
  });

  it('a resource over the bound rejects each of its spans with the reason (its attributes are copied into every span record)', () => {
    const request = jsonTraceRequest([{}], many(MAX_VALUES_PER_ITEM + 1));
    for (const decoded of [decodeTraceRequestJson(JSON.stringify(request)), decodeTraceRequestProtobuf(encodeTraceRequest(request))]) {
      expect(decoded.resourceSpans[0].scopeSpans[0].spans[0].invalid).toBe(`resource: ${REASON}`);
    }
  });

  it('log records: attributes and body entries count together', () => {
    const ok = jsonLogsRequest([{ body: { list: Array.from({ length: MAX_VALUES_PER_ITEM - 101 }, (_, i) => i) }, attributes: many(100) }]);
    const over = jsonLogsRequest([{ body: { list: Array.from({ length: MAX_VALUES_PER_ITEM - 100 }, (_, i) => i) }, attributes: many(100) }]);
    const attack = jsonLogsRequest([{ body: 'x', attributes: many(100_000) }]);
    const invalid = (req: Record<string, unknown>) =>
      [decodeLogsRequestJson(JSON.stringify(req)), decodeLogsRequestProtobuf(encodeLogsRequest(req))].map((d) => d.resourceLogs[0].scopeLogs[0].logRecords[0].invalid);
    expect(invalid(ok)).toEqual([undefined, undefined]);
    expect(invalid(over)).toEqual([`body: ${REASON}`, `body: ${REASON}`]);
    expect(invalid(attack)).toEqual([REASON, REASON]);
  });
});

describe('countField', () => {
  it('counts a field across varints, fixed fields and groups, and stops at bytes that are not protobuf', () => {
    // field 1 varint 150; field 9 "ab"; field 2 fixed64; group 3 holding field 9 "x" (not counted: not top level); field 9 "c"
    const msg = Buffer.from([0x08, 0x96, 0x01, 0x4a, 0x02, 0x61, 0x62, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b, 0x4a, 0x01, 0x78, 0x1c, 0x4a, 0x01, 0x63]);
    expect(countField(msg, 0, msg.length, 9)).toBe(2);
    expect(countField(msg, 0, 7, 9)).toBe(1);
    expect(countField(Buffer.concat([msg.subarray(0, 7), Buffer.from([0x4a, 0x09, 0x61])]), 0, 10, 9)).toBe(1);
  });
});
