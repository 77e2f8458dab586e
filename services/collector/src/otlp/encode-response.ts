import { google, opentelemetry } from '../generated/otlp.js';
import type { OtlpEncoding } from './types.ts';

const collector = opentelemetry.proto.collector;

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** ExportTraceServiceResponse; `partial` unset on full success (JSON `{}`, protobuf empty). */
export function encodeTraceResponse(encoding: OtlpEncoding, partial?: PartialSuccess): Buffer {
  if (encoding === 'json') {
    return json(partial ? { partialSuccess: { rejectedSpans: String(partial.rejected), errorMessage: partial.errorMessage } } : {});
  }
  const msg = partial ? { partialSuccess: { rejectedSpans: partial.rejected, errorMessage: partial.errorMessage } } : {};
  return Buffer.from(collector.trace.v1.ExportTraceServiceResponse.encode(msg).finish());
}

export function encodeLogsResponse(encoding: OtlpEncoding, partial?: PartialSuccess): Buffer {
  if (encoding === 'json') {
    return json(partial ? { partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.errorMessage } } : {});
  }
  const msg = partial ? { partialSuccess: { rejectedLogRecords: partial.rejected, errorMessage: partial.errorMessage } } : {};
  return Buffer.from(collector.logs.v1.ExportLogsServiceResponse.encode(msg).finish());
}

/** google.rpc.Status for error answers; `code` is the gRPC status code that matches the HTTP one. */
export function encodeStatus(encoding: OtlpEncoding, code: number, message: string): Buffer {
  if (encoding === 'json') return json({ code, message });
  return Buffer.from(google.rpc.Status.encode({ code, message }).finish());
}

export function decodeStatusProtobuf(body: Uint8Array): { code: number; message: string } {
  const s = google.rpc.Status.decode(body);
  return { code: s.code ?? 0, message: s.message ?? '' };
}

export function decodeTraceResponseProtobuf(body: Uint8Array): { partialSuccess?: { rejectedSpans: string; errorMessage: string } } {
  const r = collector.trace.v1.ExportTraceServiceResponse.decode(body);
  if (!r.partialSuccess) return {};
  return { partialSuccess: { rejectedSpans: String(r.partialSuccess.rejectedSpans ?? 0), errorMessage: r.partialSuccess.errorMessage ?? '' } };
}
