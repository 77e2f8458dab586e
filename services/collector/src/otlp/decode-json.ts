import type {
  Attributes,
  DecodedLogsRequest,
  DecodedResource,
  DecodedScope,
  DecodedSpan,
  DecodedTraceRequest,
} from './types.ts';
import { DecodeError } from './types.ts';

// OTLP/JSON: proto3 JSON mapping with hex ids, integer enums, int64 as string or number,
// lowerCamelCase keys; unknown fields are ignored (we only read the keys we know).

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function arr(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`${what} must be an array`);
  return v;
}

function obj(v: unknown, what: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new DecodeError(`${what} must be an object`);
  return v;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function hexId(v: unknown): string {
  // Invalid ids are kept as-is (lowercased) and rejected per span by the pipeline.
  return typeof v === 'string' ? v.toLowerCase() : '';
}

function u64(v: unknown): string {
  if (typeof v === 'string' && /^\d+$/.test(v)) return v.replace(/^0+(?=\d)/, '');
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.trunc(v)).toString();
  return '0';
}

// OTLP/JSON requires integer enums; names are accepted too, as a lenient receiver.
const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

function enumValue(v: unknown, names: Record<string, number>): number {
  return typeof v === 'string' && v in names ? names[v] : int(v);
}

function int(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return 0;
}

function i64(v: unknown): number | string {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  return 0;
}

/** Converts an OTLP/JSON AnyValue to a plain JS value (see Attributes). */
export function anyValueFromJson(v: unknown): unknown {
  if (!isObject(v)) return null;
  if ('stringValue' in v) return str(v.stringValue);
  if ('intValue' in v) return i64(v.intValue);
  if ('boolValue' in v) return v.boolValue === true;
  if ('doubleValue' in v) {
    const d = v.doubleValue;
    return typeof d === 'number' ? d : typeof d === 'string' ? Number(d) : 0;
  }
  if ('arrayValue' in v) return arr(obj(v.arrayValue, 'arrayValue').values, 'arrayValue.values').map(anyValueFromJson);
  if ('kvlistValue' in v) return attributesFromJson(obj(v.kvlistValue, 'kvlistValue').values);
  if ('bytesValue' in v) return str(v.bytesValue);
  return null;
}

export function attributesFromJson(kvs: unknown): Attributes {
  const out: Attributes = {};
  for (const kv of arr(kvs, 'attributes')) {
    if (isObject(kv) && typeof kv.key === 'string' && kv.key) out[kv.key] = anyValueFromJson(kv.value);
  }
  return out;
}

function resourceFromJson(v: unknown): DecodedResource {
  const r = obj(v, 'resource');
  return { attributes: attributesFromJson(r.attributes), droppedAttributesCount: int(r.droppedAttributesCount) };
}

function scopeFromJson(v: unknown): DecodedScope {
  const s = obj(v, 'scope');
  return { name: str(s.name), version: str(s.version) };
}

function spanFromJson(v: unknown): DecodedSpan {
  const s = obj(v, 'span');
  const status = obj(s.status, 'status');
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    name: str(s.name),
    kind: enumValue(s.kind, SPAN_KINDS),
    startTimeUnixNano: u64(s.startTimeUnixNano),
    endTimeUnixNano: u64(s.endTimeUnixNano),
    attributes: attributesFromJson(s.attributes),
    droppedAttributesCount: int(s.droppedAttributesCount),
    events: arr(s.events, 'events').map((e) => {
      const ev = obj(e, 'event');
      return { name: str(ev.name), timeUnixNano: u64(ev.timeUnixNano), attributes: attributesFromJson(ev.attributes) };
    }),
    status: { code: enumValue(status.code, STATUS_CODES), message: str(status.message) },
  };
}

function parseJson(body: Uint8Array | string, what: string): Json {
  let parsed: unknown;
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (text.trim() === '') return {};
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DecodeError(`invalid JSON ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!isObject(parsed)) throw new DecodeError(`invalid JSON ${what}: the body must be a JSON object`);
  return parsed;
}

function structural<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof DecodeError) throw new DecodeError(`invalid JSON ${what}: ${err.message}`, { cause: err });
    // Hostile nesting (AnyValue inside AnyValue, thousands deep) exhausts the stack: bad input, not a bug.
    if (err instanceof RangeError) throw new DecodeError(`invalid JSON ${what}: values nested too deeply`, { cause: err });
    throw err;
  }
}

/** Decodes an OTLP/JSON ExportTraceServiceRequest. */
export function decodeTraceRequestJson(body: Uint8Array | string): DecodedTraceRequest {
  const what = 'ExportTraceServiceRequest';
  const req = parseJson(body, what);
  return structural(what, () => ({
    resourceSpans: arr(req.resourceSpans, 'resourceSpans').map((rsv) => {
      const rs = obj(rsv, 'resourceSpans[]');
      return {
        resource: resourceFromJson(rs.resource),
        scopeSpans: arr(rs.scopeSpans, 'scopeSpans').map((ssv) => {
          const ss = obj(ssv, 'scopeSpans[]');
          return { scope: scopeFromJson(ss.scope), spans: arr(ss.spans, 'spans').map(spanFromJson) };
        }),
      };
    }),
  }));
}

/** Decodes an OTLP/JSON ExportLogsServiceRequest. */
export function decodeLogsRequestJson(body: Uint8Array | string): DecodedLogsRequest {
  const what = 'ExportLogsServiceRequest';
  const req = parseJson(body, what);
  return structural(what, () => ({
    resourceLogs: arr(req.resourceLogs, 'resourceLogs').map((rlv) => {
      const rl = obj(rlv, 'resourceLogs[]');
      return {
        resource: resourceFromJson(rl.resource),
        scopeLogs: arr(rl.scopeLogs, 'scopeLogs').map((slv) => {
          const sl = obj(slv, 'scopeLogs[]');
          return {
            scope: scopeFromJson(sl.scope),
            logRecords: arr(sl.logRecords, 'logRecords').map((lrv) => {
              const lr = obj(lrv, 'logRecords[]');
              return {
                timeUnixNano: u64(lr.timeUnixNano),
                observedTimeUnixNano: u64(lr.observedTimeUnixNano),
                eventName: str(lr.eventName),
                body: 'body' in lr ? anyValueFromJson(lr.body) : null,
                attributes: attributesFromJson(lr.attributes),
                droppedAttributesCount: int(lr.droppedAttributesCount),
                traceId: hexId(lr.traceId),
                spanId: hexId(lr.spanId),
              };
            }),
          };
        }),
      };
    }),
  }));
}
