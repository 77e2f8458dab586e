import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanEnvelopeSchema } from '../../../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createIngest, type Ingest } from '../ingest.ts';
import { decodeLogsRequestJsonLazy, decodeTraceRequestJsonLazy } from '../otlp/decode-json.ts';
import { decodeTraceRequestProtobufLazy } from '../otlp/decode-protobuf.ts';
import { DecodeError } from '../otlp/types.ts';
import { DEFAULT_REDACTION_KEY, type RedactionConfig } from '../redact/create-redaction.ts';
import { createRedactor } from '../redact/redactor.ts';
import { compileRules } from '../redact/rules.ts';
import { encodeTraceRequest, jsonLogsRequest, jsonSpan, kvs, type SpanSpec } from '../testing/otlp-builders.ts';
import { createRecordingProducer, type RecordingProducer } from '../testing/recording-producer.ts';
import { createConvertPool, startConvertWorker, type ConvertPool, type ConvertPoolOptions } from './convert-pool.ts';

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');
const REDACTION: RedactionConfig = { mode: 'redact', rules: [], key: null };

/** `n` chat spans of three traces: every seventh without an end (rejected), every eleventh too large (cut), emails to redact. */
function request(n: number, firstSpan = 1): Record<string, unknown> {
  const specs: SpanSpec[] = Array.from({ length: n }, (_, i) => ({
    traceId: hex((i % 3) + 1, 32),
    spanId: hex(firstSpan + i, 16),
    parentSpanId: i < 3 ? '' : hex(firstSpan + (i % 3), 16),
    ...(i % 7 === 3 ? { end: '0' } : {}),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': i,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: i % 11 === 0 ? 'x'.repeat(3500) : `mail ann${i % 5}@example.com about ${i}` }] }]),
    },
  }));
  return { resourceSpans: [{ resource: { attributes: kvs({ 'service.name': 'a', 'user.email': 'ops@example.com' }) }, scopeSpans: [{ scope: { name: 's' }, spans: specs.map(jsonSpan) }] }] };
}

const pools: ConvertPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.shutdown()));
});

function ingestWith(pool: ConvertPoolOptions | null, redaction?: RedactionConfig, maxSpansPerRequest = 10_000, parsedRecords = true): { ingest: Ingest; producer: RecordingProducer; found: Record<string, number> } {
  const producer = createRecordingProducer();
  const found: Record<string, number> = {};
  const count = (rule: string, n: number): void => {
    found[rule] = (found[rule] ?? 0) + n;
  };
  const converter = pool ? createConvertPool(pool) : undefined;
  if (converter) pools.push(converter);
  const redactor = !converter && redaction ? createRedactor({ mode: 'redact', rules: compileRules([]), key: DEFAULT_REDACTION_KEY, onFound: (rule) => count(rule, 1) }) : undefined;
  const ingest = createIngest({
    producer,
    topic: 'spans',
    maxAttributeBytes: 4096,
    maxRecordBytes: 3000,
    maxSpansPerRequest,
    produceTimeoutMs: 5_000,
    retryAfterSeconds: 5,
    log: createSilentLogger(),
    now: () => 1_700_000_000_000,
    parsedRecords,
    ...(converter ? { pool: converter, onRedactions: (f: Record<string, number>) => Object.entries(f).forEach(([rule, n]) => count(rule, n)) } : {}),
    ...(redactor ? { redactor } : {}),
  });
  return { ingest, producer, found };
}

const json = (body: Record<string, unknown>): { encoding: 'json'; bytes: Uint8Array } => ({ encoding: 'json', bytes: Buffer.from(JSON.stringify(body)) });

describe('conversion on worker threads', () => {
  it('produces exactly what the main thread produces, records, parsed envelopes and partial answer alike (JSON and protobuf, redacted)', async () => {
    const body = request(300);
    const text = JSON.stringify(body);
    const protobuf = encodeTraceRequest(body);
    const inThread = ingestWith(null, REDACTION);
    const pooled = ingestWith({ size: 1, redaction: REDACTION, log: createSilentLogger() }, REDACTION);
    const expected = await inThread.ingest.exportTraces(() => decodeTraceRequestJsonLazy(text));
    expect(expected).toEqual({ kind: 'ok', partial: { rejected: 43, errorMessage: expect.stringMatching(/^43 rejected: span 0000000000000004: endTimeUnixNano is 0/) as unknown } });
    expect(await pooled.ingest.exportTraces(() => decodeTraceRequestJsonLazy(text), undefined, json(body))).toEqual(expected);
    expect(await pooled.ingest.exportTraces(() => decodeTraceRequestProtobufLazy(protobuf), undefined, { encoding: 'protobuf', bytes: protobuf })).toEqual(expected);
    expect(pooled.producer.sent).toHaveLength(2 * 257);
    expect(pooled.producer.sent.slice(0, 257)).toEqual(inThread.producer.sent);
    expect(pooled.producer.sent.slice(257)).toEqual(inThread.producer.sent);
    expect(inThread.producer.sent.filter((s) => s.message.value.includes('@example.com'))).toEqual([]);
    // A record cut to fit goes without its parsed envelope, as on the main thread; every other one carries what the schema gives.
    const cut = pooled.producer.sent.filter((s) => s.message.parsed === undefined);
    expect(cut).toHaveLength(2 * 24);
    expect(inThread.producer.sent.filter((s) => s.message.parsed === undefined)).toHaveLength(24);
    for (const { message } of pooled.producer.sent) if (message.parsed !== undefined) expect(message.parsed).toEqual(SpanEnvelopeSchema.parse(JSON.parse(message.value)));
    expect(Object.keys(inThread.found)).toEqual(['email']);
    expect(pooled.found).toEqual({ email: 2 * (inThread.found.email ?? 0) });
  });

  it('parses no record for a bus that sends only the text (Kafka)', async () => {
    const { ingest, producer } = ingestWith({ size: 1, log: createSilentLogger() }, undefined, 10_000, false);
    expect(await ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, json(request(5)))).toMatchObject({ kind: 'ok' });
    expect(producer.sent.map((s) => Object.keys(s.message))).toEqual(Array.from({ length: 4 }, () => ['key', 'value']));
  });

  it('converts log records', async () => {
    const body = jsonLogsRequest(Array.from({ length: 40 }, (_, i) => ({ traceId: i % 9 === 4 ? 'zz' : hex((i % 4) + 1, 32), spanId: hex(i + 1, 16), eventName: 'gen_ai.user.message', body: { content: `turn ${i}` } })));
    const inThread = ingestWith(null);
    const pooled = ingestWith({ size: 2, log: createSilentLogger() });
    const expected = await inThread.ingest.exportLogs(() => decodeLogsRequestJsonLazy(JSON.stringify(body)));
    expect(await pooled.ingest.exportLogs(() => decodeLogsRequestJsonLazy(JSON.stringify(body)), undefined, json(body))).toEqual(expected);
    expect(pooled.producer.sent).toEqual(inThread.producer.sent);
    expect(pooled.producer.sent).toHaveLength(36);
  });

  it('hands exports to the producer in the order they came, though converted side by side', async () => {
    const { ingest, producer } = ingestWith({ size: 2, log: createSilentLogger() });
    const large = request(3000);
    const small = request(1, 99_999);
    const results = await Promise.all([ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, json(large)), ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, json(small))]);
    expect(results.map((r) => r.kind)).toEqual(['ok', 'ok']);
    expect(producer.sent).toHaveLength(2571 + 1);
    expect((JSON.parse(producer.sent.at(-1)?.message.value ?? '') as { span_id: string }).span_id).toBe(hex(99_999, 16));
  });

  it('answers a body that cannot be decoded with its DecodeError and one over the span limit with too_many_items, producing nothing', async () => {
    const { ingest, producer } = ingestWith({ size: 1, log: createSilentLogger() }, undefined, 2);
    const counted: number[] = [];
    await expect(ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, { encoding: 'json', bytes: Buffer.from('{"resourceSpans": 5}'), counted: (n) => counted.push(n) })).rejects.toThrow(
      new DecodeError('invalid JSON ExportTraceServiceRequest: resourceSpans must be an array'),
    );
    expect(await ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, { ...json(request(3)), counted: (n) => counted.push(n) })).toEqual({ kind: 'too_many_items', message: '3 spans exceed the limit of 2 per request' });
    expect(counted).toEqual([0, 3]);
    expect(producer.sent).toEqual([]);
  });

  it('answers the exports of a worker that stopped 503, produces none of them, and converts the next export on a new worker', async () => {
    let started = 0;
    const startWorker: ConvertPoolOptions['startWorker'] = (data) => {
      started++;
      // The first worker dies at its first job, as a crash would end it.
      return started === 1 ? new Worker(`require('node:worker_threads').parentPort.once('message', () => process.exit(3));`, { eval: true }) : startConvertWorker(data);
    };
    const { ingest, producer } = ingestWith({ size: 1, log: createSilentLogger(), startWorker });
    const lost = await ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, json(request(5)));
    expect(lost).toEqual({ kind: 'unavailable', message: 'conversion failed, retry later: conversion worker stopped: exited with code 3', retryAfterSeconds: 5 });
    expect(producer.sent).toEqual([]);
    expect(await ingest.exportTraces(() => decodeTraceRequestJsonLazy(''), undefined, json(request(5)))).toEqual({ kind: 'ok', partial: { rejected: 1, errorMessage: expect.stringMatching(/^1 rejected/) as unknown } });
    expect(producer.sent).toHaveLength(4);
    expect(started).toBe(2);
  });

  it('starts its workers ahead of the first export, and refuses to start with one that cannot', async () => {
    const pool = createConvertPool({ size: 2, log: createSilentLogger() });
    pools.push(pool);
    await pool.start();
    const broken = createConvertPool({ size: 1, log: createSilentLogger(), startWorker: () => new Worker('process.exit(4)', { eval: true }) });
    pools.push(broken);
    await expect(broken.start()).rejects.toThrow(new Error('conversion worker stopped before it started: exited with code 4'));
  });

  it('transfers a body that owns its memory and copies one that shares it (a slice of a larger buffer stays usable)', async () => {
    const pool = createConvertPool({ size: 1, log: createSilentLogger() });
    pools.push(pool);
    const text = JSON.stringify(request(2));
    const owned = new Uint8Array(Buffer.from(text));
    const shared = Buffer.from(`xx${text}`).subarray(2);
    const job = (bytes: Uint8Array) => pool.convert({ signal: 'traces', encoding: 'json', bytes, maxItems: 10, options: { maxAttributeBytes: 4096, receivedAtMs: 1_700_000_000_000 } });
    expect((await job(owned)).kind).toBe('converted');
    expect(owned.byteLength).toBe(0);
    expect((await job(shared)).kind).toBe('converted');
    expect(shared.toString()).toBe(text);
  });
});
