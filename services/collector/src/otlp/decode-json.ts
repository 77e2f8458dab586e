import type {
  Attributes,
  DecodedLogRecord,
  DecodedLogsRequest,
  DecodedResource,
  DecodedScope,
  DecodedSpan,
  DecodedTraceRequest,
  LazyLogsRequest,
  LazyTraceRequest,
} from './types.ts';
import { DecodeError, InvalidItemError } from './types.ts';
import { materializeLogsRequest, materializeTraceRequest } from './lazy-request.ts';
import { attributeLabel, MAX_ANY_VALUE_DEPTH, setAttribute, show, tooDeep } from './any-value.ts';

// OTLP/JSON: proto3 JSON mapping with hex ids, integer enums, int64 as string or number,
// lowerCamelCase keys; unknown fields are ignored (we only read the keys we know).
//
// Strictness: the shape of the request (resourceSpans, scopeSpans, spans being arrays) is checked
// for the whole export (400 when wrong). Everything inside one span or log record is checked for
// that item alone: a malformed field (a timestamp that is not an unsigned 64-bit integer, an
// intValue that is not a 64-bit integer, a value nested too deeply, ...) rejects it through
// partialSuccess and never becomes a default value.

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

/** Lenient: for the scope's name and version, which nothing downstream depends on. */
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A string field of a span or log record: absent or null is '', anything else but a string rejects the item. */
function text(v: unknown, field: string): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  throw new InvalidItemError(`${field} ${show(v)} is not a string`);
}

function hexId(v: unknown): string {
  // Invalid ids are kept (lowercased) and rejected per span by the pipeline; a non-string id is
  // kept as text so that it is rejected too, rather than read as absent (a root span).
  if (typeof v === 'string') return v.toLowerCase();
  if (v === undefined || v === null) return '';
  return show(v);
}

const U64_MAX_TEXT = '18446744073709551615';
const TWO_64 = 2 ** 64;

/** An unsigned 64-bit integer (timestamps) as a decimal string; absent is '0'. */
function u64(v: unknown, field: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) {
      const digits = v.replace(/^0+(?=\d)/, '');
      if (digits.length < 20 || (digits.length === 20 && digits <= U64_MAX_TEXT)) return digits;
      throw new InvalidItemError(`${field} ${show(v)} is over 2^64-1`);
    }
    if (/^-\d+$/.test(v)) throw new InvalidItemError(`${field} ${show(v)} is negative`);
    throw new InvalidItemError(`${field} ${show(v)} is not a decimal integer`);
  }
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new InvalidItemError(`${field} ${show(v)} is not an integer`);
    if (v < 0) throw new InvalidItemError(`${field} ${show(v)} is negative`);
    if (v >= TWO_64) throw new InvalidItemError(`${field} ${show(v)} is over 2^64-1`);
    return BigInt(v).toString();
  }
  throw new InvalidItemError(`${field} ${show(v)} is not a decimal integer`);
}

/** A uint32 field (droppedAttributesCount); absent is 0. */
function u32(v: unknown, field: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n >= 0 && n <= 0xffffffff) return n;
  throw new InvalidItemError(`${field} ${show(v)} is not an unsigned 32-bit integer`);
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

/** A proto3 enum (an int32, so unknown numbers are kept as protobuf keeps them); absent is 0. */
function enumValue(v: unknown, names: Record<string, number>, field: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'string' && Object.hasOwn(names, v)) return names[v];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff) return n;
  throw new InvalidItemError(`${field} ${show(v)} is not a valid enum value`);
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** intValue: a number when it is exact, else the decimal string (as the protobuf decoder gives it). */
function i64(v: unknown): number | string {
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63) return v;
  } else if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
    const b = BigInt(v);
    if (b >= I64_MIN && b <= I64_MAX) return b.toString();
  } else if (v === null) {
    return 0;
  }
  throw new InvalidItemError(`intValue ${show(v)} is not a 64-bit integer`);
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** doubleValue: a number, or a string as proto3 JSON allows ("1.5", "NaN", "Infinity", "-Infinity"). */
function f64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v === 'NaN') return NaN;
    if (v === 'Infinity') return Infinity;
    if (v === '-Infinity') return -Infinity;
    if (DECIMAL.test(v)) return Number(v);
  } else if (v === null) {
    return 0;
  }
  throw new InvalidItemError(`doubleValue ${show(v)} is not a number`);
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** bytesValue: base64 (standard or URL-safe), given back in standard base64 as the protobuf decoder does. */
function base64(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'string' && BASE64.test(v)) return Buffer.from(v, 'base64').toString('base64');
  throw new InvalidItemError(`bytesValue ${show(v)} is not base64`);
}

/** Converts an OTLP/JSON AnyValue enclosed by `depth` arrays/kvlists to a plain JS value (see Attributes). */
function anyValueAt(v: unknown, depth: number): unknown {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw new InvalidItemError(`${show(v)} is not an AnyValue object`);
  if ('stringValue' in v) return text(v.stringValue, 'stringValue');
  if ('intValue' in v) return i64(v.intValue);
  if ('boolValue' in v) {
    const b = v.boolValue;
    if (typeof b === 'boolean') return b;
    if (b === null) return false;
    throw new InvalidItemError(`boolValue ${show(b)} is not a boolean`);
  }
  if ('doubleValue' in v) return f64(v.doubleValue);
  if ('arrayValue' in v) {
    if (depth >= MAX_ANY_VALUE_DEPTH) throw tooDeep();
    const values = itemArray(obj(v.arrayValue, 'arrayValue').values, 'arrayValue.values');
    const out = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) out[i] = anyValueAt(values[i], depth + 1);
    return out;
  }
  if ('kvlistValue' in v) {
    if (depth >= MAX_ANY_VALUE_DEPTH) throw tooDeep();
    const out: Attributes = {};
    for (const kv of itemArray(obj(v.kvlistValue, 'kvlistValue').values, 'kvlistValue.values')) {
      if (isObject(kv) && typeof kv.key === 'string' && kv.key) setAttribute(out, kv.key, anyValueAt(kv.value, depth + 1));
    }
    return out;
  }
  if ('bytesValue' in v) return base64(v.bytesValue);
  return null;
}

/** `arr` for what lies inside one item: a wrong shape there rejects the item, not the export. */
function itemArray(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new InvalidItemError(`${what} must be an array`);
  return v;
}

function itemObject(v: unknown, what: string): Json {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new InvalidItemError(`${what} must be an object`);
  return v;
}

/** Top-level attributes; an error names the attribute (`label "key": reason`). */
function attributesFromJson(kvs: unknown, label = 'attribute'): Attributes {
  const out: Attributes = {};
  for (const kv of itemArray(kvs, 'attributes')) {
    if (!isObject(kv) || typeof kv.key !== 'string' || !kv.key) continue;
    try {
      setAttribute(out, kv.key, anyValueAt(kv.value, 0));
    } catch (err) {
      if (err instanceof InvalidItemError) throw new InvalidItemError(`${attributeLabel(label, kv.key)}: ${err.message}`, { cause: err });
      throw err;
    }
  }
  return out;
}

/** The resource, or the reason why none of its spans (or log records) can be accepted. */
function resourceFromJson(v: unknown): { resource: DecodedResource; invalid?: string } {
  const r = obj(v, 'resource');
  try {
    return { resource: { attributes: attributesFromJson(r.attributes, 'resource attribute'), droppedAttributesCount: u32(r.droppedAttributesCount, 'resource droppedAttributesCount') } };
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    return { resource: { attributes: {}, droppedAttributesCount: 0 }, invalid: err.message };
  }
}

function scopeFromJson(v: unknown): DecodedScope {
  const s = obj(v, 'scope');
  return { name: str(s.name), version: str(s.version) };
}

function spanFields(s: Json): DecodedSpan {
  const status = itemObject(s.status, 'status');
  const events = itemArray(s.events, 'events');
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    name: text(s.name, 'name'),
    kind: enumValue(s.kind, SPAN_KINDS, 'kind'),
    startTimeUnixNano: u64(s.startTimeUnixNano, 'startTimeUnixNano'),
    endTimeUnixNano: u64(s.endTimeUnixNano, 'endTimeUnixNano'),
    attributes: attributesFromJson(s.attributes),
    droppedAttributesCount: u32(s.droppedAttributesCount, 'droppedAttributesCount'),
    events: events.map((e, i) => {
      const ev = itemObject(e, `events[${i}]`);
      const name = text(ev.name, `events[${i}].name`);
      const label = `event ${JSON.stringify(name.slice(0, 64))}`;
      return { name, timeUnixNano: u64(ev.timeUnixNano, `${label} timeUnixNano`), attributes: attributesFromJson(ev.attributes, `${label} attribute`) };
    }),
    status: { code: enumValue(status.code, STATUS_CODES, 'status.code'), message: text(status.message, 'status.message') },
  };
}

function spanFromJson(v: unknown, resourceInvalid: string | undefined): DecodedSpan {
  const s = isObject(v) ? v : {};
  try {
    if (!isObject(v)) throw new InvalidItemError(`span ${show(v)} is not an object`);
    const span = spanFields(s);
    if (resourceInvalid) span.invalid = resourceInvalid;
    return span;
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    return rejectedSpan(s, err.message);
  }
}

/** What the pipeline needs of a span it rejects: its ids (for the message) and the reason. */
function rejectedSpan(s: Json, invalid: string): DecodedSpan {
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    name: '',
    kind: 0,
    startTimeUnixNano: '0',
    endTimeUnixNano: '0',
    attributes: {},
    droppedAttributesCount: 0,
    events: [],
    status: { code: 0, message: '' },
    invalid,
  };
}

function logRecordFromJson(v: unknown, resourceInvalid: string | undefined): DecodedLogRecord {
  const lr = isObject(v) ? v : {};
  const ids = { traceId: hexId(lr.traceId), spanId: hexId(lr.spanId) };
  try {
    if (!isObject(v)) throw new InvalidItemError(`log record ${show(v)} is not an object`);
    let body: unknown = null;
    if ('body' in lr) {
      try {
        body = anyValueAt(lr.body, 0);
      } catch (err) {
        if (err instanceof InvalidItemError) throw new InvalidItemError(`body: ${err.message}`, { cause: err });
        throw err;
      }
    }
    const record: DecodedLogRecord = {
      timeUnixNano: u64(lr.timeUnixNano, 'timeUnixNano'),
      observedTimeUnixNano: u64(lr.observedTimeUnixNano, 'observedTimeUnixNano'),
      eventName: text(lr.eventName, 'eventName'),
      body,
      attributes: attributesFromJson(lr.attributes),
      droppedAttributesCount: u32(lr.droppedAttributesCount, 'droppedAttributesCount'),
      ...ids,
    };
    if (resourceInvalid) record.invalid = resourceInvalid;
    return record;
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    return { timeUnixNano: '0', observedTimeUnixNano: '0', eventName: '', body: null, attributes: {}, droppedAttributesCount: 0, ...ids, invalid: err.message };
  }
}

function parseJson(body: Uint8Array | string, what: string): Json {
  let parsed: unknown;
  const raw = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (raw.trim() === '') return {};
  try {
    parsed = JSON.parse(raw);
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
    throw err;
  }
}

/**
 * An OTLP/JSON ExportTraceServiceRequest parsed and its structure checked (a DecodeError when it is
 * wrong), with each span decoded only when asked for.
 */
export function decodeTraceRequestJsonLazy(body: Uint8Array | string): LazyTraceRequest {
  const what = 'ExportTraceServiceRequest';
  const req = parseJson(body, what);
  return structural(what, () => ({
    resourceSpans: arr(req.resourceSpans, 'resourceSpans').map((rsv) => {
      const rs = obj(rsv, 'resourceSpans[]');
      const { resource, invalid } = resourceFromJson(rs.resource);
      return {
        resource,
        scopeSpans: arr(rs.scopeSpans, 'scopeSpans').map((ssv) => {
          const ss = obj(ssv, 'scopeSpans[]');
          const spans = arr(ss.spans, 'spans');
          return { scope: scopeFromJson(ss.scope), count: spans.length, span: (i: number) => spanFromJson(spans[i], invalid) };
        }),
      };
    }),
  }));
}

/** Decodes an OTLP/JSON ExportTraceServiceRequest. */
export function decodeTraceRequestJson(body: Uint8Array | string): DecodedTraceRequest {
  return materializeTraceRequest(decodeTraceRequestJsonLazy(body));
}

/** As decodeTraceRequestJsonLazy, for an ExportLogsServiceRequest. */
export function decodeLogsRequestJsonLazy(body: Uint8Array | string): LazyLogsRequest {
  const what = 'ExportLogsServiceRequest';
  const req = parseJson(body, what);
  return structural(what, () => ({
    resourceLogs: arr(req.resourceLogs, 'resourceLogs').map((rlv) => {
      const rl = obj(rlv, 'resourceLogs[]');
      const { resource, invalid } = resourceFromJson(rl.resource);
      return {
        resource,
        scopeLogs: arr(rl.scopeLogs, 'scopeLogs').map((slv) => {
          const sl = obj(slv, 'scopeLogs[]');
          const records = arr(sl.logRecords, 'logRecords');
          return { scope: scopeFromJson(sl.scope), count: records.length, logRecord: (i: number) => logRecordFromJson(records[i], invalid) };
        }),
      };
    }),
  }));
}

/** Decodes an OTLP/JSON ExportLogsServiceRequest. */
export function decodeLogsRequestJson(body: Uint8Array | string): DecodedLogsRequest {
  return materializeLogsRequest(decodeLogsRequestJsonLazy(body));
}
