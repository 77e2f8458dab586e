import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { SpanEnvelopeSchema } from '../../../../shared/contracts/schemas/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import { decodeTraceResponseProtobuf } from '../otlp/encode-response.ts';
import { deepAnyValueJson, deepAnyValueProtobuf, encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonTraceRequest, traceRequestWithRawAttributes } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';
import { google } from '../generated/otlp.js';

const TRACE_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const LOGS_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

const producer = createRecordingProducer();
let collector: Collector;
let client: Client;

beforeAll(async () => {
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 64 * 1024, maxAttributeBytes: 1024, maxSpansPerRequest: 3 }, produceTimeoutMs: 300, retryAfterSeconds: 4 },
    producer,
    log: createSilentLogger(),
  });
  await collector.start();
  client = new Client(collector.grpcAddress(), credentials.createInsecure());
});
afterAll(async () => {
  client.close();
  await collector.shutdown();
});

function call(path: string, body: Uint8Array): Promise<{ err: ServiceError | null; res?: Buffer }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(body), (err, res) => resolve({ err, res }));
  });
}

describe('OTLP/gRPC receiver', () => {
  it('exports traces and answers an empty response', async () => {
    producer.sent.length = 0;
    const { err, res } = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{ attributes: { 'gen_ai.agent.name': 'A' } }])));
    expect(err).toBeNull();
    expect(decodeTraceResponseProtobuf(res!)).toEqual({});
    expect(producer.sent).toHaveLength(1);
    const env = SpanEnvelopeSchema.parse(JSON.parse(producer.sent[0].message.value));
    expect(env.kind === 'span' && env.genai.agent_name).toBe('A');
  });

  it('exports logs', async () => {
    producer.sent.length = 0;
    const { err } = await call(LOGS_PATH, encodeLogsRequest(jsonLogsRequest([{ eventName: 'gen_ai.user.message', body: { content: 'hi' } }])));
    expect(err).toBeNull();
    expect(JSON.parse(producer.sent[0].message.value).message).toEqual({ role: 'user', content: 'hi' });
  });

  it('answers partial success for invalid span ids', async () => {
    const { err, res } = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{}, { spanId: 'ab' }])));
    expect(err).toBeNull();
    expect(decodeTraceResponseProtobuf(res!)).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: '1 rejected: invalid span id "ab"' } });
  });

  it('rejects spans with inverted timestamps or too deep an attribute one by one, keeping the valid one', async () => {
    producer.sent.length = 0;
    const built = traceRequestWithRawAttributes(jsonTraceRequest([{}, { spanId: '2222222222222222', end: '1600000000000000000' }, { spanId: '3333333333333333' }]), [
      { span: 2, key: 'deep', json: deepAnyValueJson(65), protobuf: deepAnyValueProtobuf(65) },
    ]);
    const { err, res } = await call(TRACE_PATH, built.protobuf);
    expect(err).toBeNull();
    expect(decodeTraceResponseProtobuf(res!)).toEqual({
      partialSuccess: {
        rejectedSpans: '2',
        errorMessage:
          '2 rejected: span 2222222222222222: endTimeUnixNano 1600000000000000000 is before startTimeUnixNano 1700000000000000000; span 3333333333333333: attribute "deep": nested deeper than 64 arrays/kvlists',
      },
    });
    expect(producer.sent.map((s) => (JSON.parse(s.message.value) as { span_id: string }).span_id)).toEqual(['eee19b7ec3c1b174']);
  });

  it('answers INVALID_ARGUMENT to undecodable input', async () => {
    const { err } = await call(TRACE_PATH, new Uint8Array([0x0a, 0x05, 0xff]));
    expect(err?.code).toBe(status.INVALID_ARGUMENT);
    expect(err?.details).toBe('invalid protobuf ExportTraceServiceRequest: index out of range');
  });

  it('answers RESOURCE_EXHAUSTED to too many spans and to an oversized message', async () => {
    const many = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{}, {}, {}, {}])));
    expect(many.err?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(many.err?.details).toBe('4 spans exceed the limit of 3 per request');
    const big = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{ attributes: { x: 'x'.repeat(70 * 1024) } }])));
    expect(big.err?.code).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('answers UNAVAILABLE with RetryInfo when the bus is down, and serves again after', async () => {
    producer.mode = 'fail';
    try {
      const { err } = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{}])));
      expect(err?.code).toBe(status.UNAVAILABLE);
      expect(err?.details).toBe('downstream unavailable: broker unreachable');
      const bin = err!.metadata.get('grpc-status-details-bin')[0] as Buffer;
      const st = google.rpc.Status.decode(bin);
      expect(st.details[0].typeUrl).toBe('type.googleapis.com/google.rpc.RetryInfo');
      const info = google.rpc.RetryInfo.decode(st.details[0].value!);
      expect(Number(info.retryDelay!.seconds)).toBe(4);
    } finally {
      producer.mode = 'ok';
    }
    const { err } = await call(TRACE_PATH, encodeTraceRequest(jsonTraceRequest([{}])));
    expect(err).toBeNull();
  });
});

describe('OTLP/gRPC saturation', () => {
  it('answers RESOURCE_EXHAUSTED + RetryInfo while too many exports are in flight', async () => {
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const inSend = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    const gated = createRecordingProducer();
    const send = gated.send.bind(gated);
    gated.send = async (topic, messages) => {
      entered();
      await gate;
      return send(topic, messages);
    };
    const c = createCollector({
      config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 64 * 1024, maxAttributeBytes: 1024, maxSpansPerRequest: 10, maxInFlightRequests: 1 }, retryAfterSeconds: 2 },
      producer: gated,
      log: createSilentLogger(),
    });
    await c.start();
    const cl = new Client(c.grpcAddress(), credentials.createInsecure());
    const rpc = (): Promise<ServiceError | null> =>
      new Promise((resolve) => cl.makeUnaryRequest(TRACE_PATH, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(encodeTraceRequest(jsonTraceRequest([{}]))), (err) => resolve(err)));
    try {
      const first = rpc();
      await inSend;
      const second = await rpc();
      expect(second?.code).toBe(status.RESOURCE_EXHAUSTED);
      const st = google.rpc.Status.decode(second!.metadata.get('grpc-status-details-bin')[0] as Buffer);
      expect(Number(google.rpc.RetryInfo.decode(st.details[0].value!).retryDelay!.seconds)).toBe(2);
      // HTTP shares the same budget.
      const http = await fetch(`${c.httpAddress()}/v1/traces`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(http.status).toBe(429);
      release();
      expect(await first).toBeNull();
      expect(await rpc()).toBeNull();
    } finally {
      release();
      cl.close();
      await c.shutdown();
    }
  });
});
