import type { OutgoingMessage } from '../../../shared/bus/index.ts';
import { errorMessage } from '../../../shared/errors/index.ts';
import type { DecodedLogsRequest, DecodedTraceRequest } from './otlp/types.ts';
import { normalizeLogRecord } from './normalize/normalize-log.ts';
import { normalizeSpan, type NormalizeOptions } from './normalize/normalize-span.ts';
import { fitRecord } from './fit-record.ts';

/** Kafka's default `message.max.bytes` is 1,048,588; leave room for the key and headers. */
export const DEFAULT_MAX_RECORD_BYTES = 1_000_000;

export interface Conversion {
  messages: OutgoingMessage[];
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

function summarize(reasons: string[], rejected: number): string {
  if (rejected === 0) return '';
  const shown = reasons.slice(0, 3).join('; ');
  return rejected > 3 ? `${rejected} rejected: ${shown}; …` : `${rejected} rejected: ${shown}`;
}

export function countSpans(req: DecodedTraceRequest): number {
  let n = 0;
  for (const rs of req.resourceSpans) for (const ss of rs.scopeSpans) n += ss.spans.length;
  return n;
}

export function countLogRecords(req: DecodedLogsRequest): number {
  let n = 0;
  for (const rl of req.resourceLogs) for (const sl of rl.scopeLogs) n += sl.logRecords.length;
  return n;
}

/** Decoded export → bus records keyed by trace id; spans with invalid ids are rejected one by one. */
export function traceRequestToMessages(req: DecodedTraceRequest, options: NormalizeOptions): Conversion {
  const messages: OutgoingMessage[] = [];
  const reasons: string[] = [];
  let rejected = 0;
  for (const rs of req.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        const problem = spanIdProblem(span.traceId, span.spanId, span.parentSpanId);
        if (problem) {
          rejected++;
          if (reasons.length < 3) reasons.push(problem);
          continue;
        }
        try {
          const envelope = normalizeSpan(span, rs.resource, ss.scope, options);
          const fit = fitRecord(envelope, options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES, () => (envelope.genai.truncated = true));
          if (!fit.ok) {
            rejected++;
            if (reasons.length < 3) reasons.push(`span ${span.spanId} is ${fit.bytes} bytes even with its contents cut (limit ${options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES})`);
            continue;
          }
          messages.push({ key: span.traceId, value: fit.json });
        } catch (err) {
          // A normalizer bug on one hostile span must not cost the others.
          rejected++;
          if (reasons.length < 3) reasons.push(`span ${span.spanId} could not be normalized: ${errorMessage(err)}`);
        }
      }
    }
  }
  return { messages, accepted: messages.length, rejected, errorMessage: summarize(reasons, rejected) };
}

/**
 * Decoded logs export → bus records. Only records that belong to a trace are kept (the assembler
 * attaches them to spans); records without a valid trace id are rejected.
 */
export function logsRequestToMessages(req: DecodedLogsRequest, options: NormalizeOptions): Conversion {
  const messages: OutgoingMessage[] = [];
  const reasons: string[] = [];
  let rejected = 0;
  let sequence = 0;
  for (const rl of req.resourceLogs) {
    for (const sl of rl.scopeLogs) {
      for (const record of sl.logRecords) {
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
        if (record.spanId === ZERO_SPAN) record.spanId = '';
        try {
          const fit = fitRecord(normalizeLogRecord(record, rl.resource, seq, options), options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES);
          if (!fit.ok) {
            rejected++;
            if (reasons.length < 3) reasons.push(`log record is ${fit.bytes} bytes even with its contents cut (limit ${options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES})`);
            continue;
          }
          messages.push({ key: record.traceId, value: fit.json });
        } catch (err) {
          rejected++;
          if (reasons.length < 3) reasons.push(`log record could not be normalized: ${errorMessage(err)}`);
        }
      }
    }
  }
  return { messages, accepted: messages.length, rejected, errorMessage: summarize(reasons, rejected) };
}
