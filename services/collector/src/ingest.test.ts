import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createIngest } from './ingest.ts';
import { createProjectShares } from './project-shares.ts';
import { decodeLogsRequestJson, decodeLogsRequestJsonLazy, decodeTraceRequestJson, decodeTraceRequestJsonLazy } from './otlp/decode-json.ts';
import { decodeLogsRequestProtobuf, decodeLogsRequestProtobufLazy, decodeTraceRequestProtobuf, decodeTraceRequestProtobufLazy } from './otlp/decode-protobuf.ts';
import { DecodeError } from './otlp/types.ts';
import { logsRequestToMessages, logsRequestToMessagesInSlices, traceRequestToMessages, traceRequestToMessagesInSlices } from './pipeline.ts';
import { createRecordingProducer } from './testing/recording-producer.ts';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonSpan, kvs, type SpanSpec } from './testing/otlp-builders.ts';

const options = { maxAttributeBytes: 4096, maxRecordBytes: 3000, receivedAtMs: 1 };
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** A chat span of trace `trace`; every seventh is invalid in one of several ways, every eleventh too large and cut. */
function spanSpec(i: number, trace: number): SpanSpec {
  const spec: SpanSpec = {
    traceId: hex(trace + 1, 32),
    spanId: hex(i + 1, 16),
    parentSpanId: i === 0 ? '' : hex(1, 16),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': i,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: i % 11 === 0 ? 'x'.repeat(3500) : `question ${i}` }] }]),
    },
  };
  if (i % 7 === 3) spec.end = '0';
  if (i % 7 === 5) spec.spanId = 'not-hex';
  if (i % 7 === 6) spec.attributes = { ...spec.attributes, 'gen_ai.usage.output_tokens': -1 };
  return spec;
}

const LARGE_REJECTED = '1285 rejected: span 0000000000000004: endTimeUnixNano is 0 (missing: the span has not ended); invalid span id "not-hex"; span 0000000000000007: token usage output_tokens -1 is out of range (0 to 2^53-1); …';

/** Two resources, three scopes, `n` spans of three traces. */
function largeRequest(n: number): Record<string, unknown> {
  const specs = Array.from({ length: n }, (_, i) => spanSpec(i, i % 3));
  const third = Math.floor(n / 3);
  const scope = (name: string, from: number, to: number) => ({ scope: { name }, spans: specs.slice(from, to).map(jsonSpan) });
  return {
    resourceSpans: [
      { resource: { attributes: kvs({ 'service.name': 'a' }) }, scopeSpans: [scope('one', 0, third), scope('two', third, 2 * third)] },
      { resource: { attributes: kvs({ 'service.name': 'b' }) }, scopeSpans: [scope('three', 2 * third, n)] },
    ],
  };
}

describe('conversion in slices', () => {
  it('produces exactly what the one-pass conversion produces, in the same order, with the same partial answer (JSON and protobuf)', async () => {
    const json = largeRequest(3000);
    const text = JSON.stringify(json);
    const protobuf = encodeTraceRequest(json);
    const once = traceRequestToMessages(decodeTraceRequestJson(text), options);
    // 3 of every 7 refused (428 full cycles and span 2999), every eleventh cut to fit and kept.
    expect([once.accepted, once.rejected]).toEqual([1715, 1285]);
    expect(once.errorMessage).toBe(LARGE_REJECTED);
    expect(await traceRequestToMessagesInSlices(decodeTraceRequestJsonLazy(text), options)).toEqual(once);
    expect(await traceRequestToMessagesInSlices(decodeTraceRequestProtobufLazy(protobuf), options)).toEqual(traceRequestToMessages(decodeTraceRequestProtobuf(protobuf), options));
  });

  it('converts log records in slices exactly as at once', async () => {
    const records = Array.from({ length: 500 }, (_, i) => ({ traceId: i % 9 === 4 ? 'zz' : hex((i % 4) + 1, 32), spanId: hex(i + 1, 16), eventName: 'gen_ai.user.message', body: { content: `turn ${i}` } }));
    const json = jsonLogsRequest(records);
    const once = logsRequestToMessages(decodeLogsRequestJson(JSON.stringify(json)), options);
    expect([once.accepted, once.rejected]).toEqual([444, 56]);
    expect(await logsRequestToMessagesInSlices(decodeLogsRequestJsonLazy(JSON.stringify(json)), options)).toEqual(once);
    const protobuf = encodeLogsRequest(json);
    expect(await logsRequestToMessagesInSlices(decodeLogsRequestProtobufLazy(protobuf), options)).toEqual(logsRequestToMessages(decodeLogsRequestProtobuf(protobuf), options));
  });

  it('lets the event loop run while a large export is converted', async () => {
    // 6,000 spans take far more than one 10 ms slice on any machine (about 30 µs each here).
    const lazy = decodeTraceRequestJsonLazy(JSON.stringify(largeRequest(6000)));
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    const conversion = await traceRequestToMessagesInSlices(lazy, options);
    expect(conversion.accepted + conversion.rejected).toBe(6000);
    expect(ranMeanwhile).toBe(true);
  });
});

describe('ingest: exports take turns', () => {
  const ingestWith = (producer = createRecordingProducer()) => ({
    producer,
    ingest: createIngest({ producer, topic: 'spans', maxAttributeBytes: 4096, maxRecordBytes: 3000, maxSpansPerRequest: 10_000, produceTimeoutMs: 5_000, retryAfterSeconds: 5, log: createSilentLogger() }),
  });

  it('hands exports to the producer in the order they came, a small one never ahead of a large one being converted', async () => {
    const { producer, ingest } = ingestWith();
    const large = JSON.stringify(largeRequest(3000));
    const small = JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [jsonSpan({ traceId: hex(1, 32), spanId: hex(99_999, 16) })] }] }] });
    const [first, second] = await Promise.all([ingest.exportTraces(() => decodeTraceRequestJsonLazy(large)), ingest.exportTraces(() => decodeTraceRequestJsonLazy(small))]);
    expect(first).toEqual({ kind: 'ok', partial: { rejected: 1285, errorMessage: LARGE_REJECTED } });
    expect(second).toEqual({ kind: 'ok' });
    const spanIds = producer.sent.map((s) => (JSON.parse(s.message.value) as { span_id: string }).span_id);
    expect(spanIds).toHaveLength(1716);
    expect(spanIds.at(-1)).toBe(hex(99_999, 16));
  });

  it('answers a body that cannot be decoded with its DecodeError, and the next export still gets its turn', async () => {
    const { producer, ingest } = ingestWith();
    await expect(ingest.exportTraces(() => decodeTraceRequestJsonLazy('{"resourceSpans": 5}'))).rejects.toThrow(new DecodeError('invalid JSON ExportTraceServiceRequest: resourceSpans must be an array'));
    expect(await ingest.exportTraces(() => decodeTraceRequestJsonLazy(JSON.stringify(largeRequest(3))))).toEqual({ kind: 'ok' });
    expect(producer.sent).toHaveLength(3);
  });

  it('refuses an export over the span limit before converting it', async () => {
    const producer = createRecordingProducer();
    const small = createIngest({ producer, topic: 'spans', maxAttributeBytes: 4096, maxSpansPerRequest: 2, produceTimeoutMs: 5_000, retryAfterSeconds: 5, log: createSilentLogger() });
    expect(await small.exportTraces(() => decodeTraceRequestJsonLazy(JSON.stringify(largeRequest(3))))).toEqual({ kind: 'too_many_items', message: '3 spans exceed the limit of 2 per request' });
    expect(producer.sent).toEqual([]);
  });
});

describe("ingest: a project's share of traces waiting for a root", () => {
  it('answers busy (429) to the export that would pass it, produces none of it, and takes the other projects\' and the roots', async () => {
    const producer = createRecordingProducer();
    const shares = createProjectShares({ maxRootlessTraces: 2, maxRootlessBytes: 1_000_000, maxOpenMs: 300_000 }, () => 0);
    const ingest = createIngest({ producer, topic: 'spans', maxAttributeBytes: 4096, maxSpansPerRequest: 100, produceTimeoutMs: 5_000, retryAfterSeconds: 7, log: createSilentLogger(), shares });
    const exportOf = (specs: SpanSpec[]) => JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: specs.map(jsonSpan) }] }] });
    const child = (trace: number): SpanSpec => ({ traceId: hex(trace, 32), spanId: hex(2, 16), parentSpanId: hex(1, 16) });
    const root = (trace: number): SpanSpec => ({ traceId: hex(trace, 32), spanId: hex(1, 16), parentSpanId: '' });
    const send = (project: string | undefined, specs: SpanSpec[]) => ingest.exportTraces(() => decodeTraceRequestJsonLazy(exportOf(specs)), project);
    expect(await send('a', [child(1), child(2)])).toEqual({ kind: 'ok' });
    const refused = await send('a', [child(3)]);
    expect(refused).toMatchObject({ kind: 'busy', retryAfterSeconds: 7 });
    expect(refused.kind === 'busy' && refused.message).toContain('would make 3 (share 2, TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES)');
    expect(producer.sent).toHaveLength(2);
    expect(await send('b', [child(3), child(4)])).toEqual({ kind: 'ok' });
    // No project (no keys): no share.
    expect(await send(undefined, [child(5), child(6), child(7)])).toEqual({ kind: 'ok' });
    // Trace 1's root makes room for trace 3.
    expect(await send('a', [root(1), child(3)])).toEqual({ kind: 'ok' });
    expect(producer.sent).toHaveLength(9);
  });
});
