import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assembleSession, assembleTrace, createTraceBuffer, parseSpanEnvelope } from '../../services/assembler/src/index.ts';
import { decodeLogsRequestJson, decodeLogsRequestProtobuf, decodeTraceRequestJson, decodeTraceRequestProtobuf, logsRequestToMessages, traceRequestToMessages, type DecodedLogsRequest, type DecodedTraceRequest } from '../../services/collector/src/index.ts';
import { DecodeError } from '../../services/collector/src/otlp/types.ts';
import { UnitSchema, parseRecord, type Unit } from '../../shared/schemas/index.ts';
import { byteMutation, encodeLogsRequest, encodeTraceRequest, jsonMutation, mutateBytes, mutateJson, traceAndLogsRequests, traceRequest } from './otlp-arbitraries.ts';

// Property-based fuzzing of decode → normalize → assemble over generated and mutated OTLP exports
// (generators and their temporary constraints: otlp-arbitraries.ts). Fixed seeds and bounded runs
// keep each property to a few seconds; a failure prints its seed and counterexample (mutated
// requests are not shrunk: shrinking them runs for minutes and moves the mutated slot anyway).
//
// Properties, for any body:
// 1. Decoding either succeeds or throws the collector's documented rejection (DecodeError → 400).
// 2. Every span of a decoded export is accepted or reported rejected (partialSuccess), never lost.
// 3. Every accepted record (span or log record) parses as an envelope, as the assembler reads it
//    from the bus.
// 4. Every accepted span ends up in exactly one assembled unit of its trace: each trace becomes a
//    unit whose span_count is the number of distinct spans accepted for it, the unit survives the
//    bus as the scorer reads it (UnitSchema), and nothing is held back once units are published;
//    traces that share a conversation id assemble into one session unit that holds them all.

const RECEIVED_AT_MS = 1_700_000_000_000;
const FAR_LATER_MS = 10_000_000; // past every grace and max-open

function countSpans(req: DecodedTraceRequest): number {
  let n = 0;
  for (const rs of req.resourceSpans) for (const ss of rs.scopeSpans) n += ss.spans.length;
  return n;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// protobufjs writes a lone surrogate as three bytes that decode to three U+FFFD: runs count as one.
const toWellFormed = (s: string): string => s.replace(LONE_SURROGATE, '\ufffd').replace(/\ufffd+/g, '\ufffd');

function wellFormed(v: unknown): unknown {
  if (typeof v === 'string') return toWellFormed(v);
  if (Array.isArray(v)) return v.map(wellFormed);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [toWellFormed(k), wellFormed(x)]));
  return v;
}

function countLogRecords(req: DecodedLogsRequest): number {
  let n = 0;
  for (const rl of req.resourceLogs) for (const sl of rl.scopeLogs) n += sl.logRecords.length;
  return n;
}

function decodeOrRejection<T>(decode: () => T): T | null {
  try {
    return decode();
  } catch (err) {
    expect(err).toBeInstanceOf(DecodeError);
    return null;
  }
}

/** Runs one decoded export (and its log records) through the pipeline's pure stages; checks properties 2–4. */
function checkPipeline(req: DecodedTraceRequest, logsReq: DecodedLogsRequest | null = null): void {
  const total = countSpans(req);
  const conversion = traceRequestToMessages(req, { maxAttributeBytes: 64 * 1024, maxRecordBytes: 256 * 1024, receivedAtMs: RECEIVED_AT_MS });
  expect(conversion.accepted + conversion.rejected).toBe(total);
  expect(conversion.messages).toHaveLength(conversion.accepted);
  if (conversion.rejected > 0) expect(conversion.errorMessage).not.toBe('');

  const buffer = createTraceBuffer({ graceMs: 200, maxOpenMs: 300_000, retainClosedMs: 300_000 });
  const accepted = new Map<string, Set<string>>();
  conversion.messages.forEach((m, i) => {
    const envelope = parseSpanEnvelope({ topic: 'spans', partition: 0, offset: String(i), key: m.key, value: m.value, headers: {}, timestampMs: RECEIVED_AT_MS });
    expect(envelope.trace_id).toBe(m.key);
    if (envelope.kind !== 'span') throw new Error(`a span export produced a ${envelope.kind} record`);
    buffer.add(envelope, 0, BigInt(i), 0);
    const ids = accepted.get(envelope.trace_id) ?? new Set<string>();
    ids.add(envelope.span_id);
    accepted.set(envelope.trace_id, ids);
  });

  if (logsReq) {
    const logs = logsRequestToMessages(logsReq, { maxAttributeBytes: 64 * 1024, maxRecordBytes: 256 * 1024, receivedAtMs: RECEIVED_AT_MS });
    expect(logs.accepted + logs.rejected).toBe(countLogRecords(logsReq));
    logs.messages.forEach((m, i) => {
      const offset = conversion.messages.length + i;
      const envelope = parseSpanEnvelope({ topic: 'spans', partition: 0, offset: String(offset), key: m.key, value: m.value, headers: {}, timestampMs: RECEIVED_AT_MS });
      expect(envelope.kind).toBe('log');
      buffer.add(envelope, 0, BigInt(offset), 0);
      // A record of a trace with no span here still makes a unit (of zero spans), never vanishes.
      if (!accepted.has(envelope.trace_id)) accepted.set(envelope.trace_id, new Set());
    });
  }

  const ready = buffer.takeReady(FAR_LATER_MS);
  expect(ready.map((t) => t.traceId).sort()).toEqual([...accepted.keys()].sort());
  const byConversation = new Map<string, Unit[]>();
  for (const trace of ready) {
    const unit = assembleTrace(trace, FAR_LATER_MS);
    const onTheBus = parseRecord(UnitSchema, JSON.stringify(unit), 'a unit v1');
    expect(onTheBus.unit_id).toBe(trace.traceId);
    expect(onTheBus.span_count).toBe(accepted.get(trace.traceId)!.size);
    buffer.confirm(trace.traceId, FAR_LATER_MS);
    if (onTheBus.conversation_id) byConversation.set(onTheBus.conversation_id, [...(byConversation.get(onTheBus.conversation_id) ?? []), onTheBus]);
  }
  expect(buffer.openCount()).toBe(0);
  expect(buffer.lowWaterMark(0)).toBeNull();
  // Traces that share a conversation id become one session unit holding every one of them.
  for (const [conversationId, units] of byConversation) {
    const session = parseRecord(UnitSchema, JSON.stringify(assembleSession(null, units, conversationId, FAR_LATER_MS)), 'a unit v1');
    expect([...session.trace_ids].sort()).toEqual(units.map((u) => u.unit_id).sort());
  }
}

describe('fuzz: OTLP decode → normalize → assemble', () => {
  it('valid generated exports (JSON): every span lands in its trace unit', () => {
    fc.assert(
      fc.property(traceRequest, (request) => {
        const req = decodeOrRejection(() => decodeTraceRequestJson(JSON.stringify(request)));
        expect(req).not.toBeNull();
        checkPipeline(req!);
      }),
      { numRuns: 150, seed: 1101 },
    );
  });

  it('valid generated exports (protobuf) decode like their JSON and every span lands in its unit', () => {
    fc.assert(
      fc.property(traceRequest, (request) => {
        const req = decodeOrRejection(() => decodeTraceRequestProtobuf(encodeTraceRequest(request)));
        expect(req).not.toBeNull();
        // Protobuf strings are UTF-8: a lone surrogate arrives as U+FFFD (JSON keeps it as itself).
        expect(wellFormed(req)).toEqual(wellFormed(decodeTraceRequestJson(JSON.stringify(request))));
        checkPipeline(req!);
      }),
      { numRuns: 150, seed: 1102 },
    );
  });

  it('exports with log records of their spans (JSON and protobuf): every record an envelope, every span in its unit', () => {
    fc.assert(
      fc.property(traceAndLogsRequests, fc.boolean(), ({ traces, logs }, protobuf) => {
        const req = protobuf ? decodeTraceRequestProtobuf(encodeTraceRequest(traces)) : decodeTraceRequestJson(JSON.stringify(traces));
        const logsReq = protobuf ? decodeLogsRequestProtobuf(encodeLogsRequest(logs)) : decodeLogsRequestJson(JSON.stringify(logs));
        checkPipeline(req, logsReq);
      }),
      { numRuns: 150, seed: 1110 },
    );
  });

  it('log exports mutated (JSON fields replaced, protobuf bytes damaged): a DecodeError or every record an envelope', () => {
    fc.assert(
      fc.property(traceAndLogsRequests, fc.array(jsonMutation, { minLength: 1, maxLength: 4 }), byteMutation, ({ traces, logs }, mutations, damage) => {
        const req = decodeTraceRequestJson(JSON.stringify(traces));
        const fromPb = decodeOrRejection(() => decodeLogsRequestProtobuf(mutateBytes(encodeLogsRequest(logs), damage)));
        if (fromPb) checkPipeline(req, fromPb);
        const fromJson = decodeOrRejection(() => decodeLogsRequestJson(JSON.stringify(mutateJson(logs, mutations))));
        if (fromJson) checkPipeline(req, fromJson);
      }),
      { numRuns: 200, seed: 1111, endOnFailure: true },
    );
  });

  it('JSON exports with fields replaced by random values: a DecodeError or no span lost', () => {
    fc.assert(
      fc.property(traceRequest, fc.array(jsonMutation, { minLength: 1, maxLength: 5 }), (request, mutations) => {
        const body = JSON.stringify(mutateJson(request, mutations));
        const req = decodeOrRejection(() => decodeTraceRequestJson(body));
        if (req) checkPipeline(req);
      }),
      { numRuns: 300, seed: 1103, endOnFailure: true },
    );
  });

  it('JSON bodies with bytes damaged: a DecodeError or no span lost', () => {
    fc.assert(
      fc.property(traceRequest, byteMutation, (request, damage) => {
        const body = mutateBytes(Buffer.from(JSON.stringify(request)), damage);
        const req = decodeOrRejection(() => decodeTraceRequestJson(body));
        if (req) checkPipeline(req);
      }),
      { numRuns: 200, seed: 1104 },
    );
  });

  it('protobuf bodies with bytes flipped, inserted or cut: a DecodeError or no span lost', () => {
    fc.assert(
      fc.property(traceRequest, byteMutation, (request, damage) => {
        const body = mutateBytes(encodeTraceRequest(request), damage);
        const req = decodeOrRejection(() => decodeTraceRequestProtobuf(body));
        if (req) checkPipeline(req);
      }),
      { numRuns: 300, seed: 1105 },
    );
  });

  it('arbitrary bytes and arbitrary JSON: a DecodeError or no span lost', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.jsonValue({ maxDepth: 4 }), (bytes, json) => {
        const pb = decodeOrRejection(() => decodeTraceRequestProtobuf(bytes));
        if (pb) checkPipeline(pb);
        const js = decodeOrRejection(() => decodeTraceRequestJson(JSON.stringify(json) ?? ''));
        if (js) checkPipeline(js);
      }),
      { numRuns: 300, seed: 1106 },
    );
  });
});
