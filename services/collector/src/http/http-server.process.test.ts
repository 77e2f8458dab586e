import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { SpanEnvelopeSchema } from '../../../../shared/contracts/schemas/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import { decodeStatusProtobuf, decodeTraceResponseProtobuf } from '../otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

const producer = createRecordingProducer();
let collector: Collector;
let base: string;

beforeAll(async () => {
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1024 * 1024, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 100 }, topic: 'spans-test', produceTimeoutMs: 200, retryAfterSeconds: 3 },
    producer,
    log: createSilentLogger(),
  });
  await collector.start();
  base = collector.httpAddress();
});
afterAll(() => collector.shutdown());

const request = jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]' } }]);

function post(body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/v1/traces`, { method: 'POST', body, headers: { 'content-type': contentType, ...headers } });
}

describe('OTLP/HTTP receiver (walking skeleton)', () => {
  it('accepts protobuf, produces keyed by trace id, answers an empty protobuf response', async () => {
    producer.sent.length = 0;
    const res = await post(encodeTraceRequest(request), 'application/x-protobuf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(new Uint8Array(await res.arrayBuffer()).length).toBe(0);
    expect(producer.sent).toHaveLength(1);
    expect(producer.sent[0].topic).toBe('spans-test');
    expect(producer.sent[0].message.key).toBe('5b8efff798038103d269b633813fc60c');
    const env = SpanEnvelopeSchema.parse(JSON.parse(producer.sent[0].message.value));
    expect(env.kind === 'span' && env.genai.input_messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('accepts JSON and answers {}', async () => {
    const res = await post(JSON.stringify(request), 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({});
  });

  it('answers 400 with a protobuf Status to protobuf garbage', async () => {
    const res = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff]), 'application/x-protobuf');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = decodeStatusProtobuf(new Uint8Array(await res.arrayBuffer()));
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/^invalid protobuf ExportTraceServiceRequest/);
    expect(decodeTraceResponseProtobuf(new Uint8Array())).toEqual({});
  });

  it('answers 415 to an unknown content type', async () => {
    const res = await post('x', 'text/plain');
    expect(res.status).toBe(415);
  });

  it('answers 503 with Retry-After when the bus does not acknowledge in time', async () => {
    producer.mode = 'hang';
    try {
      const res = await post(JSON.stringify(request), 'application/json');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('3');
    } finally {
      producer.mode = 'ok';
    }
  });
});

describe('OTLP/HTTP receiver when API keys cannot be read', () => {
  it('answers 503 with Retry-After (exporters retry it), not 500 (they drop it)', async () => {
    const own = createCollector({
      config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1024 * 1024, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 100 }, topic: 'spans-test', retryAfterSeconds: 4 },
      producer: createRecordingProducer(),
      authorize: () => Promise.reject(new Error('clickhouse: connect ECONNREFUSED')),
      log: createSilentLogger(),
    });
    await own.start();
    try {
      const res = await fetch(`${own.httpAddress()}/v1/traces`, { method: 'POST', body: JSON.stringify(request), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('4');
      expect(await res.json()).toEqual({ code: 14, message: 'API keys unavailable, retry later: clickhouse: connect ECONNREFUSED' });
    } finally {
      await own.shutdown();
    }
  });
});
