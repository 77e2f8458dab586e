import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createCollector, type Collector, type CollectorLimits } from '../create-collector.ts';
import type { Authorize } from '../ingest.ts';
import { decodeStatusProtobuf } from '../otlp/encode-response.ts';
import { encodeTraceRequest, jsonTraceRequest } from '../testing/otlp-builders.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

// Issue 23: 64 slow chunked uploads with one ingest key held every admission slot (every project
// got 429), and chunked bodies were not counted against the in-flight byte budget at all.

const PB = 'application/x-protobuf';
const body = Buffer.from(encodeTraceRequest(jsonTraceRequest([{ attributes: { 'gen_ai.operation.name': 'chat', pad: 'x'.repeat(40_000) } }])));

let collector: Collector | undefined;
const open: ClientRequest[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) r.destroy();
  await collector?.shutdown();
  collector = undefined;
});

async function start(limits: Partial<CollectorLimits>, authorize?: Authorize): Promise<string> {
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1024 * 1024, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 10, ...limits }, retryAfterSeconds: 3 },
    producer: createRecordingProducer(),
    ...(authorize ? { authorize } : {}),
    log: createSilentLogger(),
  });
  await collector.start();
  return `${collector.httpAddress()}/v1/traces`;
}

/** A chunked upload (no Content-Length) that sends `first` bytes of the body and then waits; `finish` sends the rest. */
function slowUpload(url: string, key: string, first: number): { answer: Promise<IncomingMessage>; finish(): void } {
  const req = request(url, { method: 'POST', headers: { 'content-type': PB, authorization: `Bearer ${key}` } });
  open.push(req);
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  req.write(body.subarray(0, first));
  return { answer, finish: () => req.end(body.subarray(first)) };
}

async function post(url: string, key: string): Promise<{ status: number; retryAfter: string | null; message: string }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': PB, authorization: `Bearer ${key}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, retryAfter: res.headers.get('retry-after'), message: res.status === 200 ? '' : decodeStatusProtobuf(bytes).message };
}

const keys: Authorize = (header) => Promise.resolve(header === 'Bearer key-a' || header === 'Bearer key-b' ? { ok: true, project: header.slice(-1) } : { ok: false, status: 401, message: 'bad key' });

/** Resolves once the collector is full for `key`: it answers 429 to a probe of the same key (a whole body). */
async function untilHeld(url: string, key: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await post(url, key)).status !== 429) {
    if (Date.now() > deadline) throw new Error(`the collector never held ${key}'s uploads`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('admission per ingest key', () => {
  it('slow chunked uploads of one key hold only its share of the slots: another key is still admitted', async () => {
    // 16 slots, a quarter (4) per key.
    const url = await start({ maxInFlightRequests: 16 }, keys);
    const uploads = Array.from({ length: 16 }, () => slowUpload(url, 'key-a', 100));
    await untilHeld(url, 'key-a');
    const refused = await Promise.all(uploads.slice(4).map((u) => u.answer.then((r) => r.statusCode)));
    expect(refused).toEqual(new Array(12).fill(429));
    expect(await post(url, 'key-b')).toEqual({ status: 200, retryAfter: null, message: '' });
    expect(await post(url, 'key-a')).toEqual({ status: 429, retryAfter: '3', message: 'collector saturated, retry later' });
    for (const u of uploads.slice(0, 4)) u.finish();
    expect(await Promise.all(uploads.slice(0, 4).map((u) => u.answer.then((r) => r.statusCode)))).toEqual([200, 200, 200, 200]);
    expect(await post(url, 'key-a')).toEqual({ status: 200, retryAfter: null, message: '' });
  });
});

describe('the in-flight byte budget counts chunked bodies', () => {
  it('a chunked upload past the budget is answered 429 while another holds it, and admitted after', async () => {
    // Room for one body (≈40 KB) in flight, not two.
    const url = await start({ maxInFlightBytes: 60_000 });
    const holder = slowUpload(url, 'any', 30_000);
    await untilHeld(url, 'any');
    const second = slowUpload(url, 'any', 0);
    second.finish();
    const answer = await second.answer;
    expect([answer.statusCode, answer.headers['retry-after'], answer.headers.connection]).toEqual([429, '3', 'close']);
    holder.finish();
    expect((await holder.answer).statusCode).toBe(200);
    const third = slowUpload(url, 'any', 0);
    third.finish();
    expect((await third.answer).statusCode).toBe(200);
  });
});
