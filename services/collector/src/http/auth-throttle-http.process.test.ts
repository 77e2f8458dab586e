import { credentials, Metadata } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createAddressMatcher, parseAddressList, type AddressMatcher } from '../../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import type { Authorize } from '../ingest.ts';
import { decodeStatusProtobuf } from '../otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

// Failed ingest-key authentication is throttled as in the API: past ten failures with one key
// prefix (30 from one address) within a minute, a further failure is answered 429 + Retry-After.
// The key is always looked up first: one address can be a NAT or the TLS proxy in front of the
// collector, and a prefix is shared by guesses, so a valid key is never refused for others' failures.

const PB = 'application/x-protobuf';
const body = Buffer.from(encodeTraceRequest(jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat' } }])));
const GOOD = 'tc_ingest_goodkey0000000000000000';

let collector: Collector | undefined;
afterEach(async () => {
  await collector?.shutdown();
  collector = undefined;
});

async function start(trustedProxies?: AddressMatcher): Promise<{ url: string; lookups: () => number }> {
  let lookups = 0;
  const authorize: Authorize = (header) => {
    lookups++;
    return Promise.resolve(header === `Bearer ${GOOD}` ? { ok: true, project: 'a' } : { ok: false, status: 401, message: 'unknown key' });
  };
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1024 * 1024, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 10 }, retryAfterSeconds: 3, ...(trustedProxies ? { trustedProxies } : {}) },
    producer: createRecordingProducer(),
    authorize,
    log: createSilentLogger(),
  });
  await collector.start();
  return { url: `${collector.httpAddress()}/v1/traces`, lookups: () => lookups };
}

async function post(url: string, key: string, extra: Record<string, string> = {}): Promise<{ status: number; retryAfter: string | null; message: string }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': PB, authorization: `Bearer ${key}`, ...extra } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: res.status === 200 ? '' : decodeStatusProtobuf(bytes).message };
}

describe('collector: failed ingest authentication is throttled', () => {
  it('past 10 failures with one key prefix, that prefix gets 429 + Retry-After; other keys still work', async () => {
    const { url } = await start();
    const guesses = Array.from({ length: 10 }, (_, i) => `tc_ingest_guess00${String(i).padStart(16, '0')}`);
    for (const key of guesses) expect((await post(url, key)).status).toBe(401);
    const refused = await post(url, 'tc_ingest_guess00another-guess-here');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(59);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.message).toMatch(/^too many failed authentications: retry in \d+ s$/);
    expect((await post(url, GOOD)).status).toBe(200);
  });

  it("ten wrong keys sharing a valid key's first 16 characters do not lock that key out", async () => {
    const { url } = await start();
    for (let i = 0; i < 12; i++) expect((await post(url, `${GOOD.slice(0, 16)}wrong${i}`)).status).toBe(i < 10 ? 401 : 429);
    expect((await post(url, GOOD)).status).toBe(200);
  });

  it('past 30 failures from one address, its failures get 429 while a valid key from it still works', async () => {
    const { url, lookups } = await start();
    for (let i = 0; i < 30; i++) expect((await post(url, `tc_ingest_p${String(i).padStart(5, '0')}x-and-the-rest-of-it`)).status).toBe(401);
    expect((await post(url, 'tc_ingest_q00000x-and-the-rest-of-it')).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await post(url, GOOD)).status).toBe(200);
    expect(lookups()).toBe(34);
  });

  it('behind a trusted proxy, clients are told apart by X-Forwarded-For; an untrusted peer cannot choose its address', async () => {
    const peerIsProxy = createAddressMatcher(parseAddressList('127.0.0.1').list);
    const { url } = await start(peerIsProxy);
    const via = (client: string, key: string) => post(url, key, { 'x-forwarded-for': client });
    for (let i = 0; i < 30; i++) expect((await via('198.51.100.1', `tc_ingest_a${String(i).padStart(5, '0')}x-and-the-rest-of-it`)).status).toBe(401);
    expect((await via('198.51.100.1', 'tc_ingest_b00000x-and-the-rest-of-it')).status).toBe(429);
    expect((await via('198.51.100.2', 'tc_ingest_c00000x-and-the-rest-of-it')).status).toBe(401);

    const { url: direct } = await start(createAddressMatcher(parseAddressList('10.9.9.9').list));
    for (let i = 0; i < 30; i++) expect((await post(direct, `tc_ingest_d${String(i).padStart(5, '0')}x-and-the-rest-of-it`, { 'x-forwarded-for': `203.0.113.${i}` })).status).toBe(401);
    expect((await post(direct, 'tc_ingest_e00000x-and-the-rest-of-it', { 'x-forwarded-for': '203.0.113.250' })).status).toBe(429);
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
