import { gzipSync, deflateSync, deflateRawSync, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { SpanEnvelopeSchema } from '../../../../shared/contracts/schemas/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import { decodeStatusProtobuf, decodeTraceResponseProtobuf } from '../otlp/encode-response.ts';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonTraceRequest, protobufField, SPAN_ID, TRACE_ID } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

const MAX_BODY = 1024 * 1024;
const PB = 'application/x-protobuf';
const JSON_CT = 'application/json';

const producer = createRecordingProducer();
let collector: Collector;
let base: string;

beforeAll(async () => {
  collector = createCollector({
    config: {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      limits: { maxBodyBytes: MAX_BODY, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 5 },
      topic: 'conformance',
      produceTimeoutMs: 300,
      retryAfterSeconds: 7,
    },
    producer,
    log: createSilentLogger(),
  });
  await collector.start();
  base = collector.httpAddress();
});
afterAll(() => collector.shutdown());

const validJson = jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat' } }]);
const validPb = encodeTraceRequest(validJson);

interface Row {
  name: string;
  path?: string;
  method?: string;
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  mode?: 'ok' | 'fail' | 'hang' | 'full';
  status: number;
  contentType: string;
  /** Decoded response body (protobuf Status / response, or JSON). */
  response?: unknown;
  retryAfter?: string;
  produced?: number;
}

async function gzipBomb(decompressedBytes: number): Promise<Buffer> {
  // Streamed so that the test itself never holds the decompressed size in memory.
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((resolve) => gz.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < decompressedBytes; written += zeros.length) {
    if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  }
  gz.end();
  await done;
  return Buffer.concat(out);
}


/** ExportTraceServiceRequest with one attribute whose AnyValue nests arrays `depth` deep. */
function deepProtobuf(depth: number): Buffer {
  let any: Buffer = Buffer.alloc(0);
  for (let i = 0; i < depth; i++) any = protobufField(5, protobufField(1, any));
  const kv = Buffer.concat([protobufField(1, Buffer.from('k')), protobufField(2, any)]);
  const span = Buffer.concat([protobufField(1, Buffer.alloc(16, 1)), protobufField(2, Buffer.alloc(8, 1)), protobufField(9, kv)]);
  return protobufField(1, protobufField(2, protobufField(2, span)));
}

function badTimesJson(): Record<string, unknown> {
  const json = jsonTraceRequest([{}, { spanId: '2222222222222222' }, { spanId: '3333333333333333' }, { spanId: '4444444444444444' }, { spanId: '5555555555555555' }]);
  const spans = (json.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>)[0].scopeSpans[0].spans;
  spans[1].startTimeUnixNano = '100000000000000000000';
  spans[2].startTimeUnixNano = 1e30;
  spans[3].startTimeUnixNano = '-5';
  spans[4].endTimeUnixNano = 'abc';
  return json;
}

function badIdsJson(): Record<string, unknown> {
  return jsonTraceRequest([
    { attributes: { n: 1 } },
    { traceId: 'abc', attributes: { n: 2 } },
    { spanId: '', attributes: { n: 3 } },
    { spanId: '00000000000000000000', attributes: { n: 4 } },
    { spanId: '1111111111111111', attributes: { n: 5 } },
  ]);
}

async function decodeBody(res: Response): Promise<unknown> {
  const buf = new Uint8Array(await res.arrayBuffer());
  const ct = res.headers.get('content-type') ?? '';
  if (ct === PB) return res.status === 200 ? decodeTraceResponseProtobuf(buf) : decodeStatusProtobuf(buf);
  return JSON.parse(Buffer.from(buf).toString('utf8'));
}

const rows: Row[] = [
  { name: 'empty protobuf body', body: new Uint8Array(), headers: { 'content-type': PB }, status: 200, contentType: PB, response: {}, produced: 0 },
  { name: 'empty JSON body', body: '', headers: { 'content-type': JSON_CT }, status: 200, contentType: JSON_CT, response: {}, produced: 0 },
  { name: '{} JSON', body: '{}', headers: { 'content-type': JSON_CT }, status: 200, contentType: JSON_CT, response: {}, produced: 0 },
  { name: 'valid protobuf', body: validPb, headers: { 'content-type': PB }, status: 200, contentType: PB, response: {}, produced: 1 },
  { name: 'valid JSON', body: JSON.stringify(validJson), headers: { 'content-type': JSON_CT }, status: 200, contentType: JSON_CT, response: {}, produced: 1 },
  {
    name: 'protobuf garbage',
    body: new Uint8Array([0x0a, 0x05, 0xff, 0xff]),
    headers: { 'content-type': PB },
    status: 400,
    contentType: PB,
    response: { code: 3, message: 'invalid protobuf ExportTraceServiceRequest: index out of range' },
  },
  {
    name: 'JSON garbage',
    body: '{"resourceSpans": [',
    headers: { 'content-type': JSON_CT },
    status: 400,
    contentType: JSON_CT,
    response: { code: 3, message: expect.stringMatching(/^invalid JSON ExportTraceServiceRequest: /) as unknown },
  },
  {
    name: 'JSON of the wrong shape',
    body: '{"resourceSpans": 5}',
    headers: { 'content-type': JSON_CT },
    status: 400,
    contentType: JSON_CT,
    response: { code: 3, message: 'invalid JSON ExportTraceServiceRequest: resourceSpans must be an array' },
  },
  {
    name: 'JSON AnyValue nested 30,000 deep: that span rejected',
    body: `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","attributes":[{"key":"k","value":${'{"arrayValue":{"values":['.repeat(30_000)}${']}}'.repeat(30_000)}}]}]}]}]}`,
    headers: { 'content-type': JSON_CT },
    status: 200,
    contentType: JSON_CT,
    response: { partialSuccess: { rejectedSpans: '1', errorMessage: `1 rejected: span ${SPAN_ID}: attribute "k": nested deeper than 64 arrays/kvlists` } },
    produced: 0,
  },
  {
    name: 'protobuf AnyValue nested 10,000 deep: that span rejected',
    body: deepProtobuf(10_000),
    headers: { 'content-type': PB },
    status: 200,
    contentType: PB,
    response: { partialSuccess: { rejectedSpans: '1', errorMessage: '1 rejected: span 0101010101010101: attribute "k": nested deeper than 64 arrays/kvlists' } },
    produced: 0,
  },
  {
    name: 'invalid timestamps (JSON): rejected per span with the reason, the valid span kept',
    body: JSON.stringify(badTimesJson()),
    headers: { 'content-type': JSON_CT },
    status: 200,
    contentType: JSON_CT,
    response: {
      partialSuccess: {
        rejectedSpans: '4',
        errorMessage:
          '4 rejected: span 2222222222222222: startTimeUnixNano "100000000000000000000" is over 2^64-1; span 3333333333333333: startTimeUnixNano 1e+30 is over 2^64-1; span 4444444444444444: startTimeUnixNano "-5" is negative; …',
      },
    },
    produced: 1,
  },
  {
    name: 'missing or inverted timestamps (protobuf): rejected per span, the valid span kept',
    body: encodeTraceRequest(jsonTraceRequest([{}, { spanId: '2222222222222222', start: '0' }, { spanId: '3333333333333333', end: '0' }, { spanId: '4444444444444444', end: '1600000000000000000' }])),
    headers: { 'content-type': PB },
    status: 200,
    contentType: PB,
    response: {
      partialSuccess: {
        rejectedSpans: '3',
        errorMessage:
          '3 rejected: span 2222222222222222: startTimeUnixNano is 0 (missing); span 3333333333333333: endTimeUnixNano is 0 (missing: the span has not ended); span 4444444444444444: endTimeUnixNano 1600000000000000000 is before startTimeUnixNano 1700000000000000000',
      },
    },
    produced: 1,
  },
  {
    name: 'wrong content type',
    body: 'hello',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    contentType: JSON_CT,
    response: { code: 3, message: 'unsupported Content-Type "text/plain" (use application/x-protobuf or application/json)' },
  },
  { name: 'charset suffix', body: JSON.stringify(validJson), headers: { 'content-type': 'application/json; charset=utf-8' }, status: 200, contentType: JSON_CT, response: {}, produced: 1 },
  { name: 'type in capitals, spaces, quoted charset', body: validPb, headers: { 'content-type': ' Application/X-Protobuf ; Charset="UTF-8"' }, status: 200, contentType: PB, response: {}, produced: 1 },
  ...['text/plain; x=application/json', 'multipart/form-data; boundary=application/x-protobuf', 'application/x-www-form-urlencoded', 'application/protobuf', 'application/jsonx', 'application/json; charset=utf-16'].map(
    (type): Row => ({
      name: `content type ${type}`,
      body: JSON.stringify(validJson),
      headers: { 'content-type': type },
      status: 415,
      contentType: JSON_CT,
      response: { code: 3, message: `unsupported Content-Type "${type}" (use application/x-protobuf or application/json)` },
      produced: 0,
    }),
  ),
  { name: 'gzip protobuf', body: gzipSync(validPb), headers: { 'content-type': PB, 'content-encoding': 'gzip' }, status: 200, contentType: PB, response: {}, produced: 1 },
  { name: 'gzip JSON', body: gzipSync(JSON.stringify(validJson)), headers: { 'content-type': JSON_CT, 'content-encoding': 'gzip' }, status: 200, contentType: JSON_CT, response: {}, produced: 1 },
  { name: 'deflate (zlib)', body: deflateSync(validPb), headers: { 'content-type': PB, 'content-encoding': 'deflate' }, status: 200, contentType: PB, response: {}, produced: 1 },
  { name: 'deflate (raw)', body: deflateRawSync(validPb), headers: { 'content-type': PB, 'content-encoding': 'deflate' }, status: 200, contentType: PB, response: {}, produced: 1 },
  {
    name: 'corrupt gzip',
    body: Buffer.from('1f8b0800000000000003ffff', 'hex'),
    headers: { 'content-type': PB, 'content-encoding': 'gzip' },
    status: 400,
    contentType: PB,
    response: { code: 3, message: expect.stringMatching(/^could not decompress gzip body/) as unknown },
  },
  {
    name: 'unsupported content encoding',
    body: validPb,
    headers: { 'content-type': PB, 'content-encoding': 'br' },
    status: 415,
    contentType: PB,
    response: { code: 3, message: 'unsupported Content-Encoding "br" (gzip, deflate and identity are accepted)' },
  },
  {
    name: 'body over the limit before decompression',
    body: new Uint8Array(MAX_BODY + 1),
    headers: { 'content-type': PB },
    status: 413,
    contentType: PB,
    response: { code: 8, message: `request body exceeds ${MAX_BODY} bytes` },
  },
  {
    name: 'more spans than allowed per request',
    body: JSON.stringify(jsonTraceRequest(Array.from({ length: 6 }, () => ({})))),
    headers: { 'content-type': JSON_CT },
    status: 413,
    contentType: JSON_CT,
    response: { code: 8, message: '6 spans exceed the limit of 5 per request' },
    produced: 0,
  },
  {
    name: 'invalid span ids (JSON): partial success, valid spans kept',
    body: JSON.stringify(badIdsJson()),
    headers: { 'content-type': JSON_CT },
    status: 200,
    contentType: JSON_CT,
    response: {
      partialSuccess: {
        rejectedSpans: '3',
        errorMessage: '3 rejected: invalid trace id "abc"; invalid span id ""; invalid span id "00000000000000000000"',
      },
    },
    produced: 2,
  },
  {
    name: 'invalid span ids (protobuf): partial success in protobuf',
    body: encodeTraceRequest(badIdsJson()),
    headers: { 'content-type': PB },
    status: 200,
    contentType: PB,
    response: {
      partialSuccess: {
        rejectedSpans: '3',
        errorMessage: '3 rejected: invalid trace id "ab"; invalid span id ""; invalid span id "00000000000000000000"',
      },
    },
    produced: 2,
  },
  {
    name: 'downstream down',
    body: validPb,
    headers: { 'content-type': PB },
    mode: 'fail',
    status: 503,
    contentType: PB,
    retryAfter: '7',
    response: { code: 14, message: 'downstream unavailable: broker unreachable' },
  },
  {
    name: 'downstream never acknowledges (produce timeout)',
    body: JSON.stringify(validJson),
    headers: { 'content-type': JSON_CT },
    mode: 'hang',
    status: 503,
    contentType: JSON_CT,
    retryAfter: '7',
    response: { code: 14, message: 'downstream unavailable: produce not acknowledged within 300 ms' },
  },
  {
    name: 'pipeline behind (in-process bus full): backpressure',
    body: validPb,
    headers: { 'content-type': PB },
    mode: 'full',
    status: 429,
    contentType: PB,
    retryAfter: '7',
    response: { code: 8, message: 'pipeline behind, retry later: the in-process bus holds 100000 records of tracecheck.spans that its consumers have not finished' },
  },
  { name: 'GET /v1/traces', method: 'GET', headers: {}, status: 405, contentType: JSON_CT, response: { code: 12, message: 'GET not allowed on /v1/traces; use POST' } },
  { name: 'unknown path', path: '/v1/metrics', body: validPb, headers: { 'content-type': PB }, status: 404, contentType: PB, response: { code: 5, message: 'no route for /v1/metrics' } },
  { name: 'logs, protobuf', path: '/v1/logs', body: encodeLogsRequest(jsonLogsRequest([{ eventName: 'gen_ai.user.message', body: { content: 'hi' } }])), headers: { 'content-type': PB }, status: 200, contentType: PB, response: {}, produced: 1 },
  { name: 'logs, JSON', path: '/v1/logs', body: JSON.stringify(jsonLogsRequest([{ eventName: 'gen_ai.user.message', body: { content: 'hi' } }])), headers: { 'content-type': JSON_CT }, status: 200, contentType: JSON_CT, response: {}, produced: 1 },
];

async function stillServes(): Promise<void> {
  const health = await fetch(`${base}/healthz`);
  expect(health.status).toBe(200);
  const res = await fetch(`${base}/v1/traces`, { method: 'POST', body: validPb, headers: { 'content-type': PB } });
  expect(res.status).toBe(200);
}

describe('OTLP/HTTP conformance table', () => {
  it.each(rows)('$name → $status', async (row) => {
    producer.sent.length = 0;
    producer.mode = row.mode ?? 'ok';
    try {
      const res = await fetch(`${base}${row.path ?? '/v1/traces'}`, { method: row.method ?? 'POST', body: row.body, headers: row.headers });
      expect(res.status).toBe(row.status);
      expect(res.headers.get('content-type')).toBe(row.contentType);
      if (row.retryAfter) expect(res.headers.get('retry-after')).toBe(row.retryAfter);
      if (row.response !== undefined) expect(await decodeBody(res)).toEqual(row.response);
      if (row.produced !== undefined) {
        expect(producer.sent).toHaveLength(row.produced);
        for (const s of producer.sent) {
          expect(s.topic).toBe('conformance');
          expect(s.message.key).toBe(TRACE_ID);
          expect(SpanEnvelopeSchema.safeParse(JSON.parse(s.message.value)).success).toBe(true);
        }
      }
    } finally {
      producer.mode = 'ok';
    }
    await stillServes();
  });

  it('keeps the valid spans of a partially rejected export', async () => {
    producer.sent.length = 0;
    await fetch(`${base}/v1/traces`, { method: 'POST', body: JSON.stringify(badIdsJson()), headers: { 'content-type': JSON_CT } });
    const spans = producer.sent.map((s) => JSON.parse(s.message.value) as { span_id: string; attributes: Record<string, unknown> });
    expect(spans.map((s) => [s.span_id, s.attributes.n])).toEqual([
      [SPAN_ID, 1],
      ['1111111111111111', 5],
    ]);
  });

  it('sends no CORS headers and grants no preflight', async () => {
    const preflight = await fetch(`${base}/v1/traces`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.status).toBe(405);
    const post = await fetch(`${base}/v1/traces`, { method: 'POST', body: JSON.stringify(validJson), headers: { 'content-type': JSON_CT, origin: 'https://evil.example' } });
    expect(post.status).toBe(200);
    for (const res of [preflight, post]) expect([...res.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('answers 413 to a gzip bomb without inflating it past the limit', async () => {
    const bomb = await gzipBomb(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(MAX_BODY);
    const before = process.memoryUsage().arrayBuffers;
    const res = await fetch(`${base}/v1/traces`, { method: 'POST', body: bomb, headers: { 'content-type': PB, 'content-encoding': 'gzip' } });
    const growth = process.memoryUsage().arrayBuffers - before;
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe(PB);
    expect(decodeStatusProtobuf(new Uint8Array(await res.arrayBuffer()))).toEqual({ code: 8, message: `decompressed request body exceeds ${MAX_BODY} bytes` });
    // zlib stops at maxOutputLength: far below the 256 MiB the bomb would inflate to.
    expect(growth).toBeLessThan(32 * 1024 * 1024);
    await stillServes();
  });
});
