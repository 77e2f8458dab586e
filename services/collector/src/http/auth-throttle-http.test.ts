import { credentials, Metadata } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import type { Authorize } from '../ingest.ts';
import { decodeStatusProtobuf } from '../otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

// Issue 23: failed ingest-key authentication was not throttled in the collector: a client could
// try keys as fast as the collector answered, each attempt a key lookup. Now, as in the API, ten
// failures with one key prefix (30 from one address) within a minute are answered 429 + Retry-After
// before any key is looked at.

const PB = 'application/x-protobuf';
const body = Buffer.from(encodeTraceRequest(jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat' } }])));
const GOOD = 'tc_ingest_goodkey0000000000000000';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.shutdown();
  collector = undefined;
});

async function start(): Promise<{ url: string; lookups: () => number }> {
  let lookups = 0;
  const authorize: Authorize = (header) => {
    lookups++;
    return Promise.resolve(header === `Bearer ${GOOD}` ? { ok: true, project: 'a' } : { ok: false, status: 401, message: 'unknown key' });
  };
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1024 * 1024, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 10 }, retryAfterSeconds: 3 },
    producer: createRecordingProducer(),
    authorize,
    log: createSilentLogger(),
  });
  await collector.start();
  return { url: `${collector.httpAddress()}/v1/traces`, lookups: () => lookups };
}

async function post(url: string, key: string): Promise<{ status: number; retryAfter: string | null; message: string }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': PB, authorization: `Bearer ${key}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: res.status === 200 ? '' : decodeStatusProtobuf(bytes).message };
}

describe('collector: failed ingest authentication is throttled', () => {
  it('past 10 failures with one key prefix, that prefix gets 429 + Retry-After without a lookup; other keys still work', async () => {
    const { url, lookups } = await start();
    const guesses = Array.from({ length: 10 }, (_, i) => `tc_ingest_guess00${String(i).padStart(16, '0')}`);
    for (const key of guesses) expect((await post(url, key)).status).toBe(401);
    expect(lookups()).toBe(10);
    const refused = await post(url, 'tc_ingest_guess00another-guess-here');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(59);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.message).toMatch(/^too many failed authentications: retry in \d+ s$/);
    expect(lookups()).toBe(10);
    expect((await post(url, GOOD)).status).toBe(200);
  });

  it('past 30 failures from one address, every export from it gets 429, a valid key too', async () => {
    const { url, lookups } = await start();
    for (let i = 0; i < 30; i++) expect((await post(url, `tc_ingest_p${String(i).padStart(5, '0')}x-and-the-rest-of-it`)).status).toBe(401);
    expect((await post(url, GOOD)).status).toBe(429);
    expect(lookups()).toBe(30);
  });

  it('gRPC: a throttled export is RESOURCE_EXHAUSTED', async () => {
    await start();
    const target = collector!.grpcAddress();
    const { Client } = await import('@grpc/grpc-js');
    const client = new Client(target, credentials.createInsecure());
    const call = (key: string) =>
      new Promise<number>((resolve) => {
        const md = new Metadata();
        md.set('authorization', `Bearer ${key}`);
        client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', (b: Buffer) => b, (b: Buffer) => b, body, md, (err) => resolve(err ? (err as { code: number }).code : 0));
      });
    for (let i = 0; i < 10; i++) expect(await call(`tc_ingest_grpcguess${i}-rest-of-the-key`)).toBe(16);
    expect(await call('tc_ingest_grpcguessZ-rest-of-the-key')).toBe(8);
    expect(await call(GOOD)).toBe(0);
    client.close();
  });
});
