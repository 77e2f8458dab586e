import { Client, credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTraceResponseProtobuf } from '../../../services/collector/src/otlp/encode-response.ts';
import {
  deepAnyValueJson,
  deepAnyValueProtobuf,
  encodeTraceRequest,
  jsonTraceRequest,
  kvs,
  traceRequestWithRawAttributes,
  type SpanSpec,
} from '../../../services/collector/src/testing/otlp-builders.ts';
import { waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';

// Issue 11: every span answered 200 either appears in a unit or is listed in partialSuccess with
// its reason. Mixed exports (valid spans beside invalid timestamps and a too-deep attribute) go
// through the embedded pipeline over OTLP/HTTP JSON, OTLP/HTTP protobuf and OTLP/gRPC.

let h: Harness;
let grpc: Client;
beforeAll(async () => {
  h = await startPipeline({});
  grpc = new Client(h.pipeline.collectorGrpcAddress(), credentials.createInsecure());
});
afterAll(async () => {
  grpc?.close();
  await h?.stop();
});

const ROOT = 'a000000000000001';
const CHILD = 'a000000000000002';
const BAD_TIME = 'b000000000000001';
const TOO_DEEP = 'b000000000000002';
const nowMs = Date.now() - 10_000;
const ns = (ms: number): string => `${ms}000000`;

/** A trace of two valid spans (a chat root and a child) and two invalid ones, for one transport. */
function mixedExport(traceId: string, badTime: Partial<SpanSpec>) {
  const spans: SpanSpec[] = [
    {
      traceId,
      spanId: ROOT,
      name: 'chat gpt-4o',
      start: ns(nowMs),
      end: ns(nowMs + 900),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 14C.' }], finish_reason: 'stop' }]),
      },
    },
    { traceId, spanId: CHILD, parentSpanId: ROOT, name: 'execute_tool get_weather', start: ns(nowMs + 100), end: ns(nowMs + 200) },
    { traceId, spanId: BAD_TIME, parentSpanId: ROOT, name: 'bad time', start: ns(nowMs + 300), end: ns(nowMs + 400), ...badTime },
    { traceId, spanId: TOO_DEEP, parentSpanId: ROOT, name: 'too deep', start: ns(nowMs + 500), end: ns(nowMs + 600) },
  ];
  return traceRequestWithRawAttributes(jsonTraceRequest(spans, { 'service.name': 'hostile-agent' }), [{ span: 3, key: 'deep', json: deepAnyValueJson(65), protobuf: deepAnyValueProtobuf(65) }]);
}

const DEEP_REASON = `span ${TOO_DEEP}: attribute "deep": nested deeper than 64 arrays/kvlists`;

interface UnitAnswer {
  unit: { span_count: number; start_time_ms: number; end_time_ms: number; messages: unknown[]; service: string | null };
}

async function unitOf(traceId: string): Promise<UnitAnswer['unit']> {
  const answer = await waitFor(
    async () => {
      const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/units/${traceId}`);
      return res.status === 200 ? ((await res.json()) as UnitAnswer) : undefined;
    },
    { timeoutMs: 30_000, description: `unit ${traceId}` },
  );
  return answer.unit;
}

function expectUnit(unit: UnitAnswer['unit']): void {
  expect(unit).toMatchObject({ span_count: 2, start_time_ms: nowMs, end_time_ms: nowMs + 900, service: 'hostile-agent' });
  expect(unit.messages).toEqual([
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: 'Rainy, 14C.' },
  ]);
}

describe('hostile spans through the embedded pipeline: rejected with a reason, the valid ones scored', () => {
  it('OTLP/HTTP JSON: a timestamp of 21 digits and a too-deep attribute', async () => {
    const traceId = 'c1000000000000000000000000000001';
    const body = mixedExport(traceId, {}).json.replace(`"startTimeUnixNano":"${ns(nowMs + 300)}"`, '"startTimeUnixNano":"100000000000000000000"');
    const res = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: `2 rejected: span ${BAD_TIME}: startTimeUnixNano "100000000000000000000" is over 2^64-1; ${DEEP_REASON}` },
    });
    expectUnit(await unitOf(traceId));
  });

  it('OTLP/HTTP protobuf: an end before the start and a too-deep attribute', async () => {
    const traceId = 'c2000000000000000000000000000002';
    const res = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: mixedExport(traceId, { end: ns(nowMs + 250) }).protobuf,
    });
    expect(res.status).toBe(200);
    expect(decodeTraceResponseProtobuf(new Uint8Array(await res.arrayBuffer()))).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: `2 rejected: span ${BAD_TIME}: endTimeUnixNano ${ns(nowMs + 250)} is before startTimeUnixNano ${ns(nowMs + 300)}; ${DEEP_REASON}` },
    });
    expectUnit(await unitOf(traceId));
  });

  it('OTLP/gRPC: a missing start time and a too-deep attribute', async () => {
    const traceId = 'c3000000000000000000000000000003';
    const response = await new Promise<Buffer>((resolve, reject) => {
      grpc.makeUnaryRequest(
        '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        (b: Buffer) => b,
        (b: Buffer) => b,
        mixedExport(traceId, { start: '0' }).protobuf,
        (err, res) => (err ? reject(err) : resolve(res!)),
      );
    });
    expect(decodeTraceResponseProtobuf(response)).toEqual({
      partialSuccess: { rejectedSpans: '2', errorMessage: `2 rejected: span ${BAD_TIME}: startTimeUnixNano is 0 (missing); ${DEEP_REASON}` },
    });
    expectUnit(await unitOf(traceId));
  });

  it('issue 23: a span far in the future and a span of 100,000 attributes are rejected with their reasons, over JSON and protobuf', async () => {
    const attributes = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, `v${i}`]));
    const future = '18446744073709551615';
    for (const [encoding, traceId] of [['json', 'c5000000000000000000000000000005'], ['protobuf', 'c6000000000000000000000000000006']] as const) {
      const request = mixedExport(traceId, { start: future, end: future });
      // The fourth span (too deep) becomes the one with 100,000 attributes.
      const json = JSON.parse(request.json) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
      json.resourceSpans[0].scopeSpans[0].spans[3].attributes = kvs(attributes);
      const body = encoding === 'json' ? JSON.stringify(json) : encodeTraceRequest(json);
      const before = Date.now();
      const res = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': `application/${encoding === 'json' ? 'json' : 'x-protobuf'}` }, body });
      expect(res.status).toBe(200);
      const answer = encoding === 'json' ? ((await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } }) : decodeTraceResponseProtobuf(new Uint8Array(await res.arrayBuffer()));
      const latest = /latest accepted (\d+)\)/.exec(answer.partialSuccess?.errorMessage ?? '')?.[1] ?? '';
      // The bound is the collector's clock plus one hour (COLLECTOR_DEFAULTS.maxFutureSkewMs).
      expect(BigInt(latest) >= BigInt(before + 3_600_000) * 1_000_000n && BigInt(latest) <= BigInt(Date.now() + 3_600_000) * 1_000_000n).toBe(true);
      expect(answer).toEqual({
        partialSuccess: {
          rejectedSpans: '2',
          errorMessage:
            `2 rejected: span ${BAD_TIME}: endTimeUnixNano ${future} is ahead of the collector's clock by more than the allowed skew (latest accepted ${latest}); ` +
            `span ${TOO_DEEP}: more than 4096 values (attributes, events, links and entries of nested arrays and kvlists together)`,
        },
      });
      expectUnit(await unitOf(traceId));
    }
  });

  it('refuses a JSON body sent as text/plain (a cross-origin page needs no preflight for that)', async () => {
    const traceId = 'c4000000000000000000000000000004';
    const res = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'text/plain; x=application/json' }, body: mixedExport(traceId, {}).json });
    expect(res.status).toBe(415);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual({ code: 3, message: 'unsupported Content-Type "text/plain; x=application/json" (use application/x-protobuf or application/json)' });
  });
});
