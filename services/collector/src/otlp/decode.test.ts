import Long from 'long';
import { describe, expect, it } from 'vitest';
import { opentelemetry } from '../generated/otlp.js';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
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
    expect(req.resourceSpans[0].scopeSpans[0].scope).toEqual({ name: '', version: '' });
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
