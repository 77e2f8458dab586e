import { errorMessage } from '../../../../shared/runtime/errors/index.ts';
import { decodeLogsRequestJsonLazy, decodeTraceRequestJsonLazy } from '../otlp/decode-json.ts';
import { decodeLogsRequestProtobufLazy, decodeTraceRequestProtobufLazy } from '../otlp/decode-protobuf.ts';
import { DecodeError, type OtlpEncoding } from '../otlp/types.ts';
import { countLogRecords, countSpans, lazyLogsRequestToMessages, lazyTraceRequestToMessages, type ConversionOptions } from '../pipeline.ts';
import type { NormalizeOptions } from '../normalize/normalize-span.ts';

/** One export's body and what converting it needs; what a conversion worker receives. */
export interface ConvertJob {
  signal: 'traces' | 'logs';
  encoding: OtlpEncoding;
  bytes: Uint8Array;
  /** Spans (or log records) per export; more: too_many_items, nothing converted. */
  maxItems: number;
  options: NormalizeOptions;
}

/**
 * What became of a job. The record for `keys[i]` is `text` from `ends[i - 1]` (0 for the first) to
 * `ends[i]`, UTF-8: one buffer, transferred to the main thread rather than copied as thousands of
 * strings (their copy was a stall of its own there). `whole[i]`: the record is the checked envelope
 * as it was (not cut by fitRecord), so its JSON text parses to what the schema gave.
 * `redactions`: values each redaction rule found, for the main thread's counter.
 */
export type ConvertOutcome =
  | { kind: 'decode_error'; message: string; received: 0 }
  | { kind: 'failed'; message: string; received: number }
  | { kind: 'too_many_items'; message: string; received: number }
  | { kind: 'converted'; received: number; keys: string[]; text: Uint8Array; ends: Uint32Array; whole: boolean[]; entries?: boolean[]; rejected: number; errorMessage: string; redactions: Record<string, number> };

/**
 * Decodes, redacts, normalizes, checks and serializes one export in one synchronous pass (the
 * worker's whole job: no event loop of its own to yield to). `redactor` options come from the worker.
 */
export function convertExport(job: ConvertJob, conversion: Pick<ConversionOptions, 'redactor'>, takeRedactions: () => Record<string, number>): ConvertOutcome {
  let received = 0;
  try {
    const options: ConversionOptions = { ...job.options, ...conversion };
    const what = job.signal === 'traces' ? 'spans' : 'log records';
    let result;
    if (job.signal === 'traces') {
      const req = job.encoding === 'protobuf' ? decodeTraceRequestProtobufLazy(job.bytes) : decodeTraceRequestJsonLazy(job.bytes);
      received = countSpans(req);
      if (received > job.maxItems) return { kind: 'too_many_items', received, message: `${received} ${what} exceed the limit of ${job.maxItems} per request` };
      result = lazyTraceRequestToMessages(req, options);
    } else {
      const req = job.encoding === 'protobuf' ? decodeLogsRequestProtobufLazy(job.bytes) : decodeLogsRequestJsonLazy(job.bytes);
      received = countLogRecords(req);
      if (received > job.maxItems) return { kind: 'too_many_items', received, message: `${received} ${what} exceed the limit of ${job.maxItems} per request` };
      result = lazyLogsRequestToMessages(req, options);
    }
    const n = result.messages.length;
    const keys = new Array<string>(n);
    const whole = new Array<boolean>(n);
    const ends = new Uint32Array(n);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const m = result.messages[i];
      keys[i] = m.key;
      whole[i] = m.parsed !== undefined;
      bytes += Buffer.byteLength(m.value);
      ends[i] = bytes;
    }
    // Memory of its own (not Node's shared pool), so that it can be transferred.
    const text = Buffer.allocUnsafeSlow(bytes);
    for (let i = 0; i < n; i++) text.write(result.messages[i].value, i === 0 ? 0 : ends[i - 1], 'utf8');
    return { kind: 'converted', received, keys, text, ends, whole, ...(result.ends ? { entries: result.ends } : {}), rejected: result.rejected, errorMessage: result.errorMessage, redactions: takeRedactions() };
  } catch (err) {
    takeRedactions();
    if (err instanceof DecodeError) return { kind: 'decode_error', message: err.message, received: 0 };
    return { kind: 'failed', message: errorMessage(err), received };
  }
}
