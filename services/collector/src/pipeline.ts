import type { OutgoingMessage } from '../../../shared/adapters/bus/index.ts';
import { DEFAULT_MAX_RECORD_BYTES } from '../../../shared/runtime/config/index.ts';
import { errorMessage } from '../../../shared/runtime/errors/index.ts';
import { runAtOnce, runInSlices } from '../../../shared/runtime/flow/index.ts';
import { SpanEnvelopeSchema, isEntrySpan, type SpanEnvelope, type SpanGenAi } from '../../../shared/contracts/schemas/index.ts';
import type { DecodedLogsRequest, DecodedSpan, DecodedTraceRequest, LazyLogsRequest, LazyTraceRequest } from './otlp/types.ts';
import { lazyLogsRequest, lazyTraceRequest } from './otlp/lazy-request.ts';
import { normalizeLogRecord } from './normalize/normalize-log.ts';
import { normalizeSpan, type NormalizeOptions } from './normalize/normalize-span.ts';
import { fitRecord } from './fit-record.ts';
import type { Redactor } from './redact/redactor.ts';

/** NormalizeOptions, and the redactor that rewrites each span or log record before anything else reads it. */
export type ConversionOptions = NormalizeOptions & { redactor?: Redactor };


export interface Conversion {
  messages: OutgoingMessage[];
  /**
   * Per message: its span can end its trace's wait for a root (a root, or an entry span; see
   * isEntrySpan). Absent: none can (log records).
   */
  ends?: boolean[];
  accepted: number;
  rejected: number;
  /** Why items were rejected (first few reasons), for partialSuccess.errorMessage. */
  errorMessage: string;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

function spanIdProblem(traceId: string, spanId: string, parentSpanId: string): string | undefined {
  if (!TRACE_ID.test(traceId) || traceId === ZERO_TRACE) return `invalid trace id "${traceId.slice(0, 64)}"`;
  if (!SPAN_ID.test(spanId) || spanId === ZERO_SPAN) return `invalid span id "${spanId.slice(0, 64)}"`;
  if (parentSpanId && !SPAN_ID.test(parentSpanId)) return `invalid parent span id "${parentSpanId.slice(0, 64)}"`;
  return undefined;
}

/**
 * The latest accepted time (Unix nanoseconds, a decimal string) under `maxFutureSkewMs` (see
 * NormalizeOptions); undefined: no bound.
 */
function latestNanos(options: NormalizeOptions): string | undefined {
  if (options.maxFutureSkewMs === undefined) return undefined;
  return (BigInt(Math.trunc(options.receivedAtMs) + Math.trunc(options.maxFutureSkewMs)) * 1_000_000n).toString();
}

function futureProblem(field: string, nanos: string, latest: string | undefined): string | undefined {
  if (latest === undefined || !lessThan(latest, nanos)) return undefined;
  return `${field} ${nanos} is ahead of the collector's clock by more than the allowed skew (latest accepted ${latest})`;
}

/** Decimal strings without leading zeros (as the decoders give them): a < b. */
function lessThan(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b;
}

/**
 * Why a span cannot be accepted, or undefined. Timestamps: both are required by OTLP and a span
 * without them would date its unit 1970; an end before the start is a broken producer (OTLP: end
 * >= start), so it is refused rather than stored with a negative duration.
 */
function spanProblem(span: DecodedSpan, latest: string | undefined): string | undefined {
  const idProblem = spanIdProblem(span.traceId, span.spanId, span.parentSpanId);
  if (idProblem) return idProblem;
  if (span.invalid) return `span ${span.spanId}: ${span.invalid}`;
  if (span.startTimeUnixNano === '0') return `span ${span.spanId}: startTimeUnixNano is 0 (missing)`;
  if (span.endTimeUnixNano === '0') return `span ${span.spanId}: endTimeUnixNano is 0 (missing: the span has not ended)`;
  if (lessThan(span.endTimeUnixNano, span.startTimeUnixNano)) {
    return `span ${span.spanId}: endTimeUnixNano ${span.endTimeUnixNano} is before startTimeUnixNano ${span.startTimeUnixNano}`;
  }
  // The end is not before the start, so a start too far ahead has an end too far ahead.
  const future = futureProblem('endTimeUnixNano', span.endTimeUnixNano, latest);
  if (future) return `span ${span.spanId}: ${future}`;
  for (const e of span.events) {
    const eventFuture = futureProblem(`event ${JSON.stringify(e.name.slice(0, 64))} timeUnixNano`, e.timeUnixNano, latest);
    if (eventFuture) return `span ${span.spanId}: ${eventFuture}`;
  }
  return undefined;
}

/**
 * Token counts must stay summable: the assembler adds them up per trace and session, and a sum
 * that overflows to Infinity is written as null, which the unit's schema refuses.
 */
function usageProblem(genai: SpanGenAi | undefined): string | undefined {
  const usage = genai?.usage;
  if (!usage) return undefined;
  for (const [key, value] of Object.entries(usage)) {
    if (value !== undefined && !(value >= 0 && value <= Number.MAX_SAFE_INTEGER)) return `token usage ${key} ${value} is out of range (0 to 2^53-1)`;
  }
  return undefined;
}

/**
 * The assembler parses every record with SpanEnvelopeSchema: one it would refuse is refused here, per
 * span. Else what the schema gives (the in-process bus hands it to the assembler, which need not parse again).
 */
function checkEnvelope(envelope: unknown): { problem: string } | { parsed: SpanEnvelope } {
  const parsed = SpanEnvelopeSchema.safeParse(envelope);
  if (parsed.success) return { parsed: parsed.data };
  const issue = parsed.error.issues[0];
  return { problem: `${issue.path.join('.')}: ${issue.message}` };
}

/** A checked record as a bus message; `parsed` only when the text is of that same object (not cut by fitRecord since). */
function messageOf(key: string, fit: { json: string; cut: boolean }, checked: { parsed: SpanEnvelope }): OutgoingMessage {
  return fit.cut ? { key, value: fit.json } : { key, value: fit.json, parsed: checked.parsed };
}

function summarize(reasons: string[], rejected: number): string {
  if (rejected === 0) return '';
  const shown = reasons.slice(0, 3).join('; ');
  return rejected > 3 ? `${rejected} rejected: ${shown}; …` : `${rejected} rejected: ${shown}`;
}

/** Rejection reasons quote what the decoder could not take (values included); they are redacted as text. */
function reasonsText(text: string, redactor: Redactor | undefined): string {
  return redactor && text ? redactor.text(text) : text;
}

export function countSpans(req: LazyTraceRequest): number {
  let n = 0;
  for (const rs of req.resourceSpans) for (const ss of rs.scopeSpans) n += ss.count;
  return n;
}

export function countLogRecords(req: LazyLogsRequest): number {
  let n = 0;
  for (const rl of req.resourceLogs) for (const sl of rl.scopeLogs) n += sl.count;
  return n;
}

/** Work between two yields to the event loop while an export is converted: other requests wait no longer. */
const YIELD_AFTER_MS = 10;

/** Decoded export → bus records keyed by trace id; spans with invalid ids are rejected one by one. */
export function traceRequestToMessages(req: DecodedTraceRequest, options: ConversionOptions): Conversion {
  return runAtOnce(traceConversionSteps(lazyTraceRequest(req), options));
}

/** As traceRequestToMessages, each span decoded as it is reached, in one pass (a conversion worker's). */
export function lazyTraceRequestToMessages(req: LazyTraceRequest, options: ConversionOptions): Conversion {
  return runAtOnce(traceConversionSteps(req, options));
}

/** As traceRequestToMessages, with each span decoded as it is reached and yields to the event loop between slices of work. */
export function traceRequestToMessagesInSlices(req: LazyTraceRequest, options: ConversionOptions): Promise<Conversion> {
  return runInSlices(traceConversionSteps(req, options), YIELD_AFTER_MS);
}

/** One step per span. */
function* traceConversionSteps(req: LazyTraceRequest, options: ConversionOptions): Generator<void, Conversion> {
  const messages: OutgoingMessage[] = [];
  const ends: boolean[] = [];
  const reasons: string[] = [];
  let rejected = 0;
  const latest = latestNanos(options);
  const redactor = options.redactor;
  for (const rs of req.resourceSpans) {
    redactor?.resource(rs.resource, options.project);
    for (const ss of rs.scopeSpans) {
      redactor?.scope(ss.scope, options.project);
      for (let i = 0; i < ss.count; i++) {
        yield;
        const span = ss.span(i);
        // First: the rejection reasons below quote event names.
        redactor?.span(span, options.project);
        const problem = spanProblem(span, latest);
        if (problem) {
          rejected++;
          if (reasons.length < 3) reasons.push(problem);
          continue;
        }
        // An all-zero parent is no parent (OTLP: an invalid id); kept, the trace would wait for it.
        if (span.parentSpanId === ZERO_SPAN) span.parentSpanId = '';
        try {
          const envelope = normalizeSpan(span, rs.resource, ss.scope, options);
          const usage = usageProblem(envelope.genai);
          const checked = usage === undefined ? checkEnvelope(envelope) : { problem: usage };
          if ('problem' in checked) {
            rejected++;
            if (reasons.length < 3) reasons.push(`span ${span.spanId}: ${checked.problem}`);
            continue;
          }
          const fit = fitRecord(envelope, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES, () => (envelope.genai.truncated = true));
          if (!fit.ok) {
            rejected++;
            if (reasons.length < 3) reasons.push(`span ${span.spanId} is ${fit.bytes} bytes even with its contents cut (limit ${options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES})`);
            continue;
          }
          messages.push(messageOf(span.traceId, fit, checked));
          ends.push(isEntrySpan(envelope));
        } catch (err) {
          // A normalizer bug on one hostile span must not cost the others.
          rejected++;
          if (reasons.length < 3) reasons.push(`span ${span.spanId} could not be normalized: ${errorMessage(err)}`);
        }
      }
    }
  }
  return { messages, ends, accepted: messages.length, rejected, errorMessage: reasonsText(summarize(reasons, rejected), redactor) };
}

/**
 * Decoded logs export → bus records. Only records that belong to a trace are kept (the assembler
 * attaches them to spans); records without a valid trace id are rejected.
 */
export function logsRequestToMessages(req: DecodedLogsRequest, options: ConversionOptions): Conversion {
  return runAtOnce(logsConversionSteps(lazyLogsRequest(req), options));
}

/** As logsRequestToMessages, each record decoded as it is reached, in one pass. */
export function lazyLogsRequestToMessages(req: LazyLogsRequest, options: ConversionOptions): Conversion {
  return runAtOnce(logsConversionSteps(req, options));
}

/** As logsRequestToMessages, in slices (see traceRequestToMessagesInSlices). */
export function logsRequestToMessagesInSlices(req: LazyLogsRequest, options: ConversionOptions): Promise<Conversion> {
  return runInSlices(logsConversionSteps(req, options), YIELD_AFTER_MS);
}

/** One step per log record. */
function* logsConversionSteps(req: LazyLogsRequest, options: ConversionOptions): Generator<void, Conversion> {
  const messages: OutgoingMessage[] = [];
  const reasons: string[] = [];
  let rejected = 0;
  let sequence = 0;
  const latest = latestNanos(options);
  const redactor = options.redactor;
  for (const rl of req.resourceLogs) {
    redactor?.resource(rl.resource, options.project);
    for (const sl of rl.scopeLogs) {
      for (let i = 0; i < sl.count; i++) {
        yield;
        const record = sl.logRecord(i);
        redactor?.logRecord(record, options.project);
        const seq = sequence++;
        if (!TRACE_ID.test(record.traceId) || record.traceId === ZERO_TRACE) {
          rejected++;
          if (reasons.length < 3) reasons.push(`log record without a valid trace id "${record.traceId.slice(0, 64)}"`);
          continue;
        }
        if (record.spanId && !SPAN_ID.test(record.spanId)) {
          rejected++;
          if (reasons.length < 3) reasons.push(`invalid span id "${record.spanId.slice(0, 64)}"`);
          continue;
        }
        if (record.invalid) {
          rejected++;
          if (reasons.length < 3) reasons.push(`log record: ${record.invalid}`);
          continue;
        }
        const future = futureProblem('timeUnixNano', record.timeUnixNano, latest) ?? futureProblem('observedTimeUnixNano', record.observedTimeUnixNano, latest);
        if (future) {
          rejected++;
          if (reasons.length < 3) reasons.push(`log record: ${future}`);
          continue;
        }
        if (record.spanId === ZERO_SPAN) record.spanId = '';
        try {
          const envelope = normalizeLogRecord(record, rl.resource, seq, options, sl.scope);
          const usage = usageProblem(envelope.genai);
          const checked = usage === undefined ? checkEnvelope(envelope) : { problem: usage };
          if ('problem' in checked) {
            rejected++;
            if (reasons.length < 3) reasons.push(`log record: ${checked.problem}`);
            continue;
          }
          const fit = fitRecord(envelope, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
          if (!fit.ok) {
            rejected++;
            if (reasons.length < 3) reasons.push(`log record is ${fit.bytes} bytes even with its contents cut (limit ${options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES})`);
            continue;
          }
          messages.push(messageOf(record.traceId, fit, checked));
        } catch (err) {
          rejected++;
          if (reasons.length < 3) reasons.push(`log record could not be normalized: ${errorMessage(err)}`);
        }
      }
    }
  }
  return { messages, accepted: messages.length, rejected, errorMessage: reasonsText(summarize(reasons, rejected), redactor) };
}
