import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createCollector } from '../create-collector.ts';
import { decodeStatusProtobuf } from '../otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

// OTLP/HTTP under more exports than it takes at once (the conformance table: conformance.process.test.ts).
const MAX_BODY = 1024 * 1024;
const PB = 'application/x-protobuf';
const validPb = encodeTraceRequest(jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat' } }]));

describe('OTLP/HTTP saturation', () => {
  it('answers 429 + Retry-After while too many exports are in flight, and serves again after', async () => {
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
      config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: MAX_BODY, maxAttributeBytes: 1024, maxSpansPerRequest: 10, maxInFlightRequests: 1 }, retryAfterSeconds: 2 },
      producer: gated,
      log: createSilentLogger(),
    });
    await c.start();
    try {
      const url = `${c.httpAddress()}/v1/traces`;
      const first = fetch(url, { method: 'POST', body: validPb, headers: { 'content-type': PB } });
      await inSend;
      const second = await fetch(url, { method: 'POST', body: validPb, headers: { 'content-type': PB } });
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('2');
      expect(second.headers.get('content-type')).toBe(PB);
      expect(decodeStatusProtobuf(new Uint8Array(await second.arrayBuffer()))).toEqual({ code: 8, message: 'collector saturated, retry later' });
      release();
      expect((await first).status).toBe(200);
      const third = await fetch(url, { method: 'POST', body: validPb, headers: { 'content-type': PB } });
      expect(third.status).toBe(200);
      expect(gated.sent).toHaveLength(2);
    } finally {
      release();
      await c.shutdown();
    }
  });
});
