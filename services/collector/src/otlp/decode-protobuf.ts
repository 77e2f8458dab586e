import { opentelemetry } from '../generated/otlp.js';
import type {
  Attributes,
  DecodedEvent,
  DecodedLogsRequest,
  DecodedResource,
  DecodedScope,
  DecodedSpan,
  DecodedTraceRequest,
} from './types.ts';
import { DecodeError } from './types.ts';

const pb = opentelemetry.proto;
type PbAnyValue = opentelemetry.proto.common.v1.IAnyValue;
type PbKeyValue = opentelemetry.proto.common.v1.IKeyValue;
type PbLong = number | { low: number; high: number; unsigned: boolean; toString(): string; toNumber(): number };

const EMPTY = new Uint8Array(0);

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

// Ids are 8 or 16 bytes: a table beats making a Buffer view per id.
function hex(bytes: Uint8Array | null | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

function u64(v: PbLong | null | undefined): string {
  if (v === null || v === undefined) return '0';
  if (typeof v === 'number') return String(v);
  if (v.high === 0) return String(v.low >>> 0);
  return ((BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0)).toString();
}

function i64(v: PbLong): number | string {
  if (typeof v === 'number') return v;
  const n = v.toNumber();
  return Number.isSafeInteger(n) ? n : v.toString();
}

/** Converts a protobuf AnyValue to a plain JS value (see Attributes). */
export function anyValueFromProto(v: PbAnyValue | null | undefined): unknown {
  if (!v) return null;
  if (v.stringValue != null) return v.stringValue;
  if (v.intValue != null) return i64(v.intValue);
  if (v.boolValue != null) return v.boolValue;
  if (v.doubleValue != null) return v.doubleValue;
  if (v.arrayValue != null) return (v.arrayValue.values ?? []).map(anyValueFromProto);
  if (v.kvlistValue != null) return attributesFromProto(v.kvlistValue.values);
  if (v.bytesValue != null) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

export function attributesFromProto(kvs: PbKeyValue[] | null | undefined): Attributes {
  const out: Attributes = {};
  if (!kvs) return out;
  for (const kv of kvs) {
    if (kv.key) out[kv.key] = anyValueFromProto(kv.value);
  }
  return out;
}

function resourceFromProto(r: opentelemetry.proto.resource.v1.IResource | null | undefined): DecodedResource {
  return { attributes: attributesFromProto(r?.attributes), droppedAttributesCount: r?.droppedAttributesCount ?? 0 };
}

function scopeFromProto(s: opentelemetry.proto.common.v1.IInstrumentationScope | null | undefined): DecodedScope {
  return { name: s?.name ?? '', version: s?.version ?? '' };
}

function spanFromProto(s: opentelemetry.proto.trace.v1.ISpan): DecodedSpan {
  const events: DecodedEvent[] = [];
  if (s.events) {
    for (const e of s.events) {
      events.push({ name: e.name ?? '', timeUnixNano: u64(e.timeUnixNano), attributes: attributesFromProto(e.attributes) });
    }
  }
  return {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    parentSpanId: hex(s.parentSpanId),
    name: s.name ?? '',
    kind: s.kind ?? 0,
    startTimeUnixNano: u64(s.startTimeUnixNano),
    endTimeUnixNano: u64(s.endTimeUnixNano),
    attributes: attributesFromProto(s.attributes),
    droppedAttributesCount: s.droppedAttributesCount ?? 0,
    events,
    status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
  };
}

/** protobufjs picks its Buffer reader (fast utf8Slice strings) only for a Buffer, not a plain Uint8Array. */
function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function decodeOrThrow<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw new DecodeError(`invalid protobuf ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** Decodes a binary ExportTraceServiceRequest. An empty body is an empty (valid) request. */
export function decodeTraceRequestProtobuf(body: Uint8Array): DecodedTraceRequest {
  const req = decodeOrThrow('ExportTraceServiceRequest', () =>
    pb.collector.trace.v1.ExportTraceServiceRequest.decode(body.length ? asBuffer(body) : EMPTY),
  );
  return {
    resourceSpans: (req.resourceSpans ?? []).map((rs) => ({
      resource: resourceFromProto(rs.resource),
      scopeSpans: (rs.scopeSpans ?? []).map((ss) => ({ scope: scopeFromProto(ss.scope), spans: (ss.spans ?? []).map(spanFromProto) })),
    })),
  };
}

/** Decodes a binary ExportLogsServiceRequest. */
export function decodeLogsRequestProtobuf(body: Uint8Array): DecodedLogsRequest {
  const req = decodeOrThrow('ExportLogsServiceRequest', () => pb.collector.logs.v1.ExportLogsServiceRequest.decode(body.length ? asBuffer(body) : EMPTY));
  return {
    resourceLogs: (req.resourceLogs ?? []).map((rl) => ({
      resource: resourceFromProto(rl.resource),
      scopeLogs: (rl.scopeLogs ?? []).map((sl) => ({
        scope: scopeFromProto(sl.scope),
        logRecords: (sl.logRecords ?? []).map((lr) => ({
          timeUnixNano: u64(lr.timeUnixNano as PbLong),
          observedTimeUnixNano: u64(lr.observedTimeUnixNano as PbLong),
          eventName: lr.eventName ?? '',
          body: lr.body ? anyValueFromProto(lr.body) : null,
          attributes: attributesFromProto(lr.attributes),
          droppedAttributesCount: lr.droppedAttributesCount ?? 0,
          traceId: hex(lr.traceId),
          spanId: hex(lr.spanId),
        })),
      })),
    })),
  };
}
