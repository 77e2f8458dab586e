import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assembleSession } from '../../services/assembler/src/assemble-session.ts';
import { assembleTrace } from '../../services/assembler/src/assemble-trace.ts';
import { parseSpanEnvelope } from '../../services/assembler/src/create-assembler.ts';
import { createTraceWindowHarness } from '../helpers/trace-window-harness.ts';
import { decodeLogsRequestJson, decodeLogsRequestProtobuf, decodeTraceRequestJson, decodeTraceRequestProtobuf, logsRequestToMessages, traceRequestToMessages, type Conversion, type DecodedLogsRequest, type DecodedTraceRequest } from '../../services/collector/src/index.ts';
import { DecodeError } from '../../services/collector/src/otlp/types.ts';
import { buildJudgePrompt, unitToCheckInput } from '../../shared/engines/checks/index.ts';
import { isMissing } from '../../shared/engines/checks/template.ts';
import { asSeen, inputFrom, withoutSpaces } from '../../shared/engines/checks/test-support.ts';
import { UnitSchema, parseRecord, type SpanRecord, type Unit } from '../../shared/contracts/schemas/index.ts';
import { encodeLogsRequest, encodeTraceRequest, portableTraceRequest, traceAndLogsRequests, traceRequest } from './otlp-arbitraries.ts';
import { byteMutation, jsonMutation, mutateBytes, mutateJson } from './otlp-mutations.ts';
import { expectUnit, mustRejectAll } from './otlp-oracle.ts';

// Property-based fuzzing of decode → normalize → assemble over generated and mutated OTLP exports
// (generators: otlp-arbitraries.ts, otlp-mutations.ts; oracles: otlp-oracle.ts). Fixed seeds and
// bounded runs keep each property to a few seconds; a failure prints its seed and counterexample (mutated requests are not shrunk:
// shrinking them runs for minutes and moves the mutated slot anyway).
//
// Properties, for any body:
// 1. Decoding either succeeds or throws the collector's documented rejection (DecodeError → 400).
// 2. Every span of a decoded export is accepted or rejected (partialSuccess) with a reason of its
//    own, never lost; a span with a timestamp that is no uint64, an end before its start, an enum
//    or count out of range, or a value nested deeper than 64 is rejected, naming that field.
// 3. Every accepted record (span or log record) parses as an envelope, as the assembler reads it
//    from the bus.
// 4. Every accepted span ends up in its trace's unit: span_count counts each distinct span once
//    (an exact re-send is kept once, another span under a taken id is kept as a copy and flagged),
//    or, past the span cap, the unit is truncated and says how many spans it left out. The unit
//    survives the bus as the scorer reads it (UnitSchema), nothing is held back once units are
//    published, and traces that share a conversation id assemble into one session unit.
// 5. An export's JSON and protobuf forms give the same records.
// 6. A judge prompt of any unit assembled here (every template variable) holds each field in its
//    own fenced block, as JSON that decodes to the field, that nothing in it can close, and with
//    no double bracket however look-alikes are read; the system message holds no trace text.

const RECEIVED_AT_MS = 1_700_000_000_000;
const FAR_LATER_MS = 10_000_000; // past every grace and max-open
/** Small, so that the generators' occasional large traces cross it (the default is 10,000). */
const MAX_SPANS_PER_TRACE = 8;
const NORMALIZE = { maxAttributeBytes: 64 * 1024, maxRecordBytes: 256 * 1024, receivedAtMs: RECEIVED_AT_MS };

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

/** Converts each span alone: accepted, or rejected with a reason of its own (checked against `mustReject`), as in the whole export. */
function checkEachSpan(req: DecodedTraceRequest, whole: Conversion, mustReject: RegExp[][] | null): void {
  const messages: Conversion['messages'] = [];
  let i = 0;
  for (const rs of req.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        // A copy of its own: what one span's conversion does to the shared resource must not change another's.
        const alone = traceRequestToMessages(structuredClone({ resourceSpans: [{ resource: rs.resource, scopeSpans: [{ scope: ss.scope, spans: [span] }] }] }), NORMALIZE);
        expect(alone.accepted + alone.rejected).toBe(1);
        if (alone.rejected === 1) expect(alone.errorMessage).toMatch(/^1 rejected: \S/);
        const problems = mustReject?.[i] ?? [];
        if (problems.length > 0) {
          expect(alone.rejected, `span ${i} has ${problems.join(', ')}`).toBe(1);
          expect(problems.some((p) => p.test(alone.errorMessage)), `${alone.errorMessage} names one of ${problems.join(', ')}`).toBe(true);
        }
        messages.push(...alone.messages);
        i++;
      }
    }
  }
  expect(messages).toEqual(whole.messages);
}

const JUDGE_FIELDS = ['model_output', 'scenario_input', 'scenario_result', 'model_input', 'message_history', 'tool_calls', 'tools'] as const;
const JUDGE_TEMPLATE = `Judge ${JUDGE_FIELDS.map((f) => `{${f}}`).join(' ')}; reply [[True]] or [[False]].`;

/** Property 6, for one unit. */
function checkJudgePrompt(unit: Unit): void {
  const input = unitToCheckInput(unit);
  const prompt = buildJudgePrompt(JUDGE_TEMPLATE, input);
  expect(prompt.system).toBe(buildJudgePrompt(JUDGE_TEMPLATE, inputFrom([]), { nonce: prompt.nonce }).system);
  const end = `<<<END-DATA-${prompt.nonce}>>>`;
  expect(prompt.user.split(end)).toHaveLength(JUDGE_FIELDS.length + 1);
  const blocks = [...prompt.user.matchAll(new RegExp(`<<<DATA-${prompt.nonce} (\\w+)>>>\\n([\\s\\S]*?)\\n${end}`, 'g'))];
  expect(blocks.map((b) => b[1])).toEqual(JUDGE_FIELDS);
  for (const [i, field] of JUDGE_FIELDS.entries()) {
    const body = blocks[i][2];
    const value = field === 'tools' ? unit.tools.map((t) => t.function) : input[field];
    if (isMissing(value)) {
      expect(body).toBe('(not provided)');
      continue;
    }
    expect(withoutSpaces(JSON.parse(body))).toEqual(withoutSpaces(value));
    // A list is one item per line, between its brackets.
    if (Array.isArray(value)) expect(body.split('\n')).toHaveLength(value.length + 2);
    const seen = asSeen(body);
    expect(seen).not.toContain('[[');
    expect(seen).not.toContain(']]');
  }
}

/** Property 4 for one assembled unit, given its trace's spans in arrival order; returns the unit as the scorer reads it. */
function checkUnit(unit: Unit, arrived: readonly SpanRecord[], judge: boolean): Unit {
  const onTheBus = parseRecord(UnitSchema, JSON.stringify(unit), 'a unit v1');
  const expected = expectUnit(arrived, MAX_SPANS_PER_TRACE);
  expect(onTheBus.span_count).toBe(expected.spanCount);
  const limit = onTheBus.errors.filter((e) => e.type === 'tracecheck.span_limit');
  if (expected.dropped > 0) {
    expect(onTheBus.truncated).toBe(true);
    expect(limit).toEqual([{ type: 'tracecheck.span_limit', message: `the trace had more records than the limit of ${MAX_SPANS_PER_TRACE} spans per trace: ${expected.dropped} spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)` }]);
  } else {
    expect(limit).toEqual([]);
  }
  const duplicates = onTheBus.errors.filter((e) => e.type === 'tracecheck.duplicate_span_id').map((e) => [e.span_id, e.message]);
  expect(duplicates.sort()).toEqual([...expected.duplicates].map(([id, n]) => [id, `span id ${id} arrived ${n} times with different contents; every copy is kept`]).sort());
  if (judge) checkJudgePrompt(onTheBus);
  return onTheBus;
}

/** An exporter's retry of these records: the same contents, another arrival time. */
const retried = (messages: Conversion['messages'], receivedAtMs: number): Conversion['messages'] =>
  messages.map((m) => ({ ...m, value: JSON.stringify({ ...(JSON.parse(m.value) as object), received_at_ms: receivedAtMs }) }));

interface PipelineOptions {
  logsReq?: DecodedLogsRequest | null;
  /** Per span of the request, in order: the problems that force its rejection (see mustRejectFor). */
  mustReject?: RegExp[][] | null;
  /** The export sent again (an exporter's retry: the same contents, another arrival time), while its traces are open or after their units were published. */
  resend?: 'none' | 'while-open' | 'after-publish';
  /** Check property 6 on every unit. */
  judge?: boolean;
}

/** Runs one decoded export (and its log records) through the pipeline's pure stages; checks properties 2–4. */
function checkPipeline(req: DecodedTraceRequest, { logsReq = null, mustReject = null, resend = 'none', judge = false }: PipelineOptions = {}): Conversion {
  const total = countSpans(req);
  // Normalizing consumes a decoded span's attributes: each span alone is converted from a copy.
  const copy = structuredClone(req);
  const conversion = traceRequestToMessages(req, NORMALIZE);
  expect(conversion.accepted + conversion.rejected).toBe(total);
  expect(conversion.messages).toHaveLength(conversion.accepted);
  // What the in-process bus hands the assembler instead of the text is that text's parse, key for key.
  for (const m of conversion.messages) if (m.parsed !== undefined) expect(JSON.stringify(m.parsed)).toBe(JSON.stringify(parseSpanEnvelope(m.value)));
  if (conversion.rejected > 0) expect(conversion.errorMessage).toMatch(new RegExp(`^${conversion.rejected} rejected: \\S`));
  checkEachSpan(copy, conversion, mustReject);

  const buffer = createTraceWindowHarness({ graceMs: 200, maxOpenMs: 300_000, retainClosedMs: 300_000, maxSpansPerTrace: MAX_SPANS_PER_TRACE });
  const arrived = new Map<string, SpanRecord[]>();
  const sent = resend === 'while-open' ? [...conversion.messages, ...retried(conversion.messages, RECEIVED_AT_MS + 1)] : conversion.messages;
  sent.forEach((m, i) => {
    const envelope = parseSpanEnvelope(m.value);
    expect(envelope.trace_id).toBe(m.key);
    if (envelope.kind !== 'span') throw new Error(`a span export produced a ${envelope.kind} record`);
    buffer.add(envelope, 0, BigInt(i), 0);
    arrived.set(envelope.trace_id, [...(arrived.get(envelope.trace_id) ?? []), envelope]);
  });

  let logCount = 0;
  if (logsReq) {
    const logs = logsRequestToMessages(logsReq, NORMALIZE);
    logCount = logs.messages.length;
    expect(logs.accepted + logs.rejected).toBe(countLogRecords(logsReq));
    logs.messages.forEach((m, i) => {
      const offset = sent.length + i;
      const envelope = parseSpanEnvelope(m.value);
      expect(envelope.kind).toBe('log');
      buffer.add(envelope, 0, BigInt(offset), 0);
      // A record of a trace with no span here still makes a unit (of zero spans), never vanishes.
      if (!arrived.has(envelope.trace_id)) arrived.set(envelope.trace_id, []);
    });
  }

  const ready = buffer.takeReady(FAR_LATER_MS);
  expect(ready.map((t) => t.traceId).sort()).toEqual([...arrived.keys()].sort());
  const byConversation = new Map<string, Unit[]>();
  const published = new Map<string, Unit>();
  for (const trace of ready) {
    const unit = checkUnit(assembleTrace(trace, FAR_LATER_MS), arrived.get(trace.traceId)!, judge);
    published.set(trace.traceId, unit);
    buffer.confirm(trace.traceId, FAR_LATER_MS);
    if (unit.conversation_id) byConversation.set(unit.conversation_id, [...(byConversation.get(unit.conversation_id) ?? []), unit]);
  }
  expect(buffer.openCount()).toBe(0);
  expect(buffer.lowWaterMark(0)).toBeNull();
  // Traces that share a conversation id become one session unit holding every one of them.
  for (const [conversationId, units] of byConversation) {
    const session = parseRecord(UnitSchema, JSON.stringify(assembleSession(null, units, conversationId, FAR_LATER_MS)), 'a unit v1');
    expect([...session.trace_ids].sort()).toEqual(units.map((u) => u.unit_id).sort());
  }

  if (resend === 'after-publish') {
    // The export once more after its units were published: an exact re-send of what a unit holds
    // changes nothing (no trace re-opens, nothing is held); a trace with spans left out for the cap
    // re-opens whole, and its unit comes out as before (only that count grows).
    const offset = sent.length + logCount;
    const again = retried(conversion.messages, RECEIVED_AT_MS + 2);
    again.forEach((m, i) => {
      const envelope = parseSpanEnvelope(m.value);
      if (envelope.kind !== 'span') throw new Error(`a span export produced a ${envelope.kind} record`);
      buffer.add(envelope, 0, BigInt(offset + i), FAR_LATER_MS + 1);
      arrived.get(envelope.trace_id)!.push(envelope);
    });
    const readyAgain = buffer.takeReady(3 * FAR_LATER_MS);
    const leftOut = (id: string): boolean => published.get(id)!.errors.some((e) => e.type === 'tracecheck.span_limit');
    expect(readyAgain.map((t) => t.traceId).sort()).toEqual([...new Set(again.map((m) => m.key))].filter(leftOut).sort());
    const comparable = (u: Unit): unknown => ({ ...u, assembled_at_ms: 0, errors: u.errors.filter((e) => e.type !== 'tracecheck.span_limit') });
    for (const trace of readyAgain) {
      const unit = checkUnit(assembleTrace(trace, FAR_LATER_MS), arrived.get(trace.traceId)!, false);
      expect(comparable(unit)).toEqual(comparable(published.get(trace.traceId)!));
      buffer.confirm(trace.traceId, 3 * FAR_LATER_MS);
    }
    expect(buffer.openCount()).toBe(0);
  }
  return conversion;
}

/** The records of a conversion as the assembler reads them, with lone surrogates as protobuf carries them. */
const recordsOf = (c: Conversion): unknown[] => c.messages.map((m) => ({ key: m.key, value: wellFormed(JSON.parse(m.value)) }));

const RESEND = fc.constantFrom('none' as const, 'while-open' as const, 'after-publish' as const);

describe('fuzz: OTLP decode → normalize → assemble', () => {
  it('generated exports (JSON, hostile in every way JSON allows): each span accepted or rejected with its reason, every accepted span in its unit, every unit safe in a judge prompt', () => {
    fc.assert(
      fc.property(traceRequest, RESEND, (request, resend) => {
        const req = decodeOrRejection(() => decodeTraceRequestJson(JSON.stringify(request)));
        expect(req).not.toBeNull();
        checkPipeline(req!, { mustReject: mustRejectAll(request), resend, judge: true });
      }),
      { numRuns: 100, seed: 1101 },
    );
  });

  it('generated exports (protobuf) give the records their JSON form gives, and every accepted span lands in its unit', () => {
    fc.assert(
      fc.property(portableTraceRequest, RESEND, (request, resend) => {
        const req = decodeOrRejection(() => decodeTraceRequestProtobuf(encodeTraceRequest(request)));
        expect(req).not.toBeNull();
        const mustReject = mustRejectAll(request);
        const fromPb = checkPipeline(req!, { mustReject, resend });
        const fromJson = checkPipeline(decodeTraceRequestJson(JSON.stringify(request)), { mustReject });
        // Protobuf strings are UTF-8: a lone surrogate arrives as U+FFFD (JSON keeps it as itself).
        expect(recordsOf(fromPb)).toEqual(recordsOf(fromJson));
        expect(fromPb.rejected).toBe(fromJson.rejected);
      }),
      { numRuns: 60, seed: 1102 },
    );
  });

  it('exports with log records of their spans (JSON and protobuf): every record an envelope, every span in its unit', () => {
    fc.assert(
      fc.property(traceAndLogsRequests, fc.boolean(), ({ traces, logs }, protobuf) => {
        const req = protobuf ? decodeTraceRequestProtobuf(encodeTraceRequest(traces)) : decodeTraceRequestJson(JSON.stringify(traces));
        const logsReq = protobuf ? decodeLogsRequestProtobuf(encodeLogsRequest(logs)) : decodeLogsRequestJson(JSON.stringify(logs));
        checkPipeline(req, { logsReq, mustReject: mustRejectAll(traces) });
      }),
      { numRuns: 100, seed: 1110 },
    );
  });

  it('log exports mutated (JSON fields replaced, protobuf bytes damaged): a DecodeError or every record an envelope', () => {
    fc.assert(
      fc.property(traceAndLogsRequests, fc.array(jsonMutation, { minLength: 1, maxLength: 4 }), byteMutation, ({ traces, logs }, mutations, damage) => {
        const req = decodeTraceRequestJson(JSON.stringify(traces));
        const fromPb = decodeOrRejection(() => decodeLogsRequestProtobuf(mutateBytes(encodeLogsRequest(logs), damage)));
        if (fromPb) checkPipeline(req, { logsReq: fromPb });
        const fromJson = decodeOrRejection(() => decodeLogsRequestJson(JSON.stringify(mutateJson(logs, mutations))));
        if (fromJson) checkPipeline(req, { logsReq: fromJson });
      }),
      { numRuns: 120, seed: 1111, endOnFailure: true },
    );
  });

  it('JSON exports with fields replaced, duplicated, nested or made odd: a DecodeError or no span lost, every unit safe in a judge prompt', () => {
    fc.assert(
      fc.property(traceRequest, fc.array(jsonMutation, { minLength: 1, maxLength: 5 }), (request, mutations) => {
        const body = JSON.stringify(mutateJson(request, mutations));
        const req = decodeOrRejection(() => decodeTraceRequestJson(body));
        if (req) checkPipeline(req, { judge: true });
      }),
      { numRuns: 160, seed: 1103, endOnFailure: true },
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
      fc.property(portableTraceRequest, byteMutation, (request, damage) => {
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
