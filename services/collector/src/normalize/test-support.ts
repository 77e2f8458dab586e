import { expect } from 'vitest';
import { SpanEnvelopeSchema, type LogRecordEnvelope, type SpanRecord } from '../../../../shared/contracts/schemas/index.ts';
import { decodeLogsRequestJson, decodeTraceRequestJson } from '../otlp/decode-json.ts';
import { jsonLogsRequest, jsonTraceRequest, type LogSpec, type SpanSpec } from '../testing/otlp-builders.ts';
import { normalizeLogRecord } from './normalize-log.ts';
import { normalizeSpan } from './normalize-span.ts';

/** Runs one span through JSON decoding and normalization, and checks the envelope against the schema. */
export function normalizeOne(
  spec: SpanSpec,
  options: { resource?: Record<string, unknown>; scope?: { name: string; version?: string }; maxAttributeBytes?: number } = {},
): SpanRecord {
  const req = decodeTraceRequestJson(JSON.stringify(jsonTraceRequest([spec], options.resource ?? {}, options.scope)));
  const rs = req.resourceSpans[0];
  const env = normalizeSpan(rs.scopeSpans[0].spans[0], rs.resource, rs.scopeSpans[0].scope, {
    maxAttributeBytes: options.maxAttributeBytes ?? 1024 * 1024,
    receivedAtMs: 1,
  });
  const parsed = SpanEnvelopeSchema.safeParse(env);
  expect(parsed.error).toBeUndefined();
  return env;
}

export function normalizeLogs(records: LogSpec[]): LogRecordEnvelope[] {
  const req = decodeLogsRequestJson(JSON.stringify(jsonLogsRequest(records)));
  const rl = req.resourceLogs[0];
  return rl.scopeLogs[0].logRecords.map((r, i) => {
    const env = normalizeLogRecord(r, rl.resource, i, { maxAttributeBytes: 1024 * 1024, receivedAtMs: 1 });
    expect(SpanEnvelopeSchema.safeParse(env).error).toBeUndefined();
    return env;
  });
}
