import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollector, type Collector } from '../../../services/collector/src/index.ts';
import { decodeStatusProtobuf } from '../../../services/collector/src/otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest, SPAN_ID, TRACE_ID } from '../../../services/collector/src/testing/otlp-builders.ts';
import { createKafkaBus, type Bus, type BusMessage, type Consumer, type Producer } from '../../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { SpanEnvelopeSchema } from '../../../shared/contracts/schemas/index.ts';
import { testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';

// Collector → real Kafka: a 200 means the record is in the topic (acks=all), keyed by trace id;
// with Kafka unreachable the answer is 503 + Retry-After within the produce timeout.

const log = createSilentLogger();
const LIMITS = { maxBodyBytes: 20 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000 };

describe('collector → Kafka', () => {
  const topic = uniqueName('spans');
  let bus: Bus;
  let producer: Producer;
  let collector: Collector;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('collector-test'), log });
    await bus.ensureTopics([topic]);
    producer = bus.createProducer();
    await producer.start();
    collector = createCollector({ config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: LIMITS, topic, produceTimeoutMs: 20_000 }, producer, log });
    await collector.start();
  });
  afterAll(async () => {
    for (const c of consumers) await c.shutdown();
    await collector.shutdown();
    await producer.shutdown();
  });

  it('answers 200 only once the envelope is in the topic, keyed by trace id', async () => {
    const request = jsonTraceRequest(
      [
        {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o',
            'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]',
            'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Rainy."}],"finish_reason":"stop"}]',
          },
        },
      ],
      { 'service.name': 'weather-agent' },
    );
    const res = await fetch(`${collector.httpAddress()}/v1/traces`, { method: 'POST', body: encodeTraceRequest(request), headers: { 'content-type': 'application/x-protobuf' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect((await res.arrayBuffer()).byteLength).toBe(0);

    // Read back only after the answer: acks=all means the record must already be there.
    const received: BusMessage[] = [];
    const consumer = bus.createConsumer({
      topic,
      groupId: uniqueName('collector-readback'),
      fromBeginning: true,
      handle: (m) => {
        received.push(m);
        return Promise.resolve();
      },
    });
    consumers.push(consumer);
    await consumer.start();
    const [message] = await waitFor(() => (received.length > 0 ? received : undefined), { timeoutMs: 60_000, description: 'the envelope in the topic' });
    expect(received).toHaveLength(1);
    expect(message.key).toBe(TRACE_ID);
    const envelope = SpanEnvelopeSchema.parse(JSON.parse(message.value));
    expect(envelope).toEqual({
      schema_version: 1,
      kind: 'span',
      trace_id: TRACE_ID,
      span_id: SPAN_ID,
      name: 'chat gpt-4o',
      span_kind: 3,
      start_time_unix_nano: '1700000000000000000',
      end_time_unix_nano: '1700000001000000000',
      status: { code: 0 },
      service_name: 'weather-agent',
      scope: { name: 'test-scope', version: '1.0.0' },
      attributes: {},
      resource_attributes: { 'service.name': 'weather-agent' },
      events: [],
      dropped_attributes_count: 0,
      genai: {
        family: 'otel_genai',
        operation: 'chat',
        input_messages: [{ role: 'user', content: 'Weather in Paris?' }],
        output_messages: [{ role: 'assistant', content: 'Rainy.' }],
        request_model: 'gpt-4o',
      },
      received_at_ms: expect.any(Number),
    });
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('collector with Kafka unreachable', () => {
  let collector: Collector;
  let producer: Producer;

  beforeAll(async () => {
    const bus = createKafkaBus({ brokers: [`127.0.0.1:${await closedPort()}`], clientId: uniqueName('collector-down'), log, connectionTimeoutMs: 500, clientRetries: 1 });
    producer = bus.createProducer();
    // The broker is not there: the producer cannot connect, and the collector must still answer.
    await expect(producer.start()).rejects.toThrow();
    collector = createCollector({ config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: LIMITS, topic: uniqueName('spans'), produceTimeoutMs: 3_000, retryAfterSeconds: 9 }, producer, log });
    await collector.start();
  });
  afterAll(async () => {
    await collector.shutdown();
    await producer.shutdown();
  });

  it('answers 503 + Retry-After in the request encoding, and keeps serving', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${collector.httpAddress()}/v1/traces`, {
        method: 'POST',
        body: encodeTraceRequest(jsonTraceRequest([{}])),
        headers: { 'content-type': 'application/x-protobuf' },
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('9');
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      const status = decodeStatusProtobuf(new Uint8Array(await res.arrayBuffer()));
      expect(status.code).toBe(14);
      expect(status.message).toMatch(/^downstream unavailable: /);
    }
    const health = await fetch(`${collector.httpAddress()}/healthz`);
    expect(health.status).toBe(200);
  });
});
