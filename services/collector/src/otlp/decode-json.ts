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
import { DecodeError, InvalidItemError, refusedSpan } from './types.ts';
import { materializeLogsRequest, materializeTraceRequest } from './lazy-request.ts';
import { attributeLabel, charge, MAX_ANY_VALUE_DEPTH, setAttribute, show, tooDeep, valueBudget, type ValueBudget } from './any-value.ts';
import { base64, enumValue, f64, hexId, i64, SPAN_KINDS, STATUS_CODES, text, u32, u64 } from './json-scalars.ts';

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

/**
 * Converts an OTLP/JSON AnyValue enclosed by `depth` arrays/kvlists to a plain JS value (see
 * Attributes); the entries of arrays and kvlists are taken from `budget` before they are converted.
 */
function anyValueAt(v: unknown, depth: number, budget: ValueBudget): unknown {
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
    charge(budget, values.length);
    const out = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) out[i] = anyValueAt(values[i], depth + 1, budget);
    return out;
  }
  if ('kvlistValue' in v) {
    if (depth >= MAX_ANY_VALUE_DEPTH) throw tooDeep();
    const out: Attributes = {};
    const entries = itemArray(obj(v.kvlistValue, 'kvlistValue').values, 'kvlistValue.values');
    charge(budget, entries.length);
    for (const kv of entries) {
      if (isObject(kv) && typeof kv.key === 'string' && kv.key) setAttribute(out, kv.key, anyValueAt(kv.value, depth + 1, budget));
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

/**
 * Top-level attributes (their number already taken from `budget` by the caller, nested entries
 * are taken here); an error names the attribute (`label "key": reason`).
 */
function attributesFromJson(kvs: unknown, budget: ValueBudget, label = 'attribute'): Attributes {
  const out: Attributes = {};
  for (const kv of itemArray(kvs, 'attributes')) {
    if (!isObject(kv) || typeof kv.key !== 'string' || !kv.key) continue;
    try {
      setAttribute(out, kv.key, anyValueAt(kv.value, 0, budget));
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
    const budget = valueBudget();
    charge(budget, itemArray(r.attributes, 'attributes').length, 'resource');
    return { resource: { attributes: attributesFromJson(r.attributes, budget, 'resource attribute'), droppedAttributesCount: u32(r.droppedAttributesCount, 'resource droppedAttributesCount') } };
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    return { resource: { attributes: {}, droppedAttributesCount: 0 }, invalid: err.message };
  }
}

/** The scope, with the schema URL of its scopeSpans (else of its resourceSpans), which says which convention names to expect. */
function scopeFromJson(v: unknown, ...schemaUrls: unknown[]): DecodedScope {
  const s = obj(v, 'scope');
  const schemaUrl = schemaUrls.map(str).find((u) => u !== '');
  return schemaUrl ? { name: str(s.name), version: str(s.version), schemaUrl } : { name: str(s.name), version: str(s.version) };
}

function spanFields(s: Json): DecodedSpan {
  const status = itemObject(s.status, 'status');
  const events = itemArray(s.events, 'events');
  const budget = valueBudget();
  // Counted before anything is converted, as the protobuf decoder counts them before decoding the
  // span: the same span is refused with the same reason in both encodings. Links are not kept,
  // but they count, as protobufjs decodes them.
  const links = itemArray(s.links, 'links');
  let values = itemArray(s.attributes, 'attributes').length + events.length + links.length;
  for (const e of events) if (isObject(e)) values += itemArray(e.attributes, 'attributes').length;
  for (const l of links) if (isObject(l)) values += itemArray(l.attributes, 'attributes').length;
  charge(budget, values);
  return {
    traceId: hexId(s.traceId),
    spanId: hexId(s.spanId),
    parentSpanId: hexId(s.parentSpanId),
    name: text(s.name, 'name'),
    kind: enumValue(s.kind, SPAN_KINDS, 'kind'),
    startTimeUnixNano: u64(s.startTimeUnixNano, 'startTimeUnixNano'),
    endTimeUnixNano: u64(s.endTimeUnixNano, 'endTimeUnixNano'),
    attributes: attributesFromJson(s.attributes, budget),
    droppedAttributesCount: u32(s.droppedAttributesCount, 'droppedAttributesCount'),
    events: events.map((e, i) => {
      const ev = itemObject(e, `events[${i}]`);
      const name = text(ev.name, `events[${i}].name`);
      const label = `event ${JSON.stringify(name.slice(0, 64))}`;
      return { name, timeUnixNano: u64(ev.timeUnixNano, `${label} timeUnixNano`), attributes: attributesFromJson(ev.attributes, budget, `${label} attribute`) };
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
    return refusedSpan({ traceId: hexId(s.traceId), spanId: hexId(s.spanId), parentSpanId: hexId(s.parentSpanId) }, err.message);
  }
}

function logRecordFromJson(v: unknown, resourceInvalid: string | undefined): DecodedLogRecord {
  const lr = isObject(v) ? v : {};
  const ids = { traceId: hexId(lr.traceId), spanId: hexId(lr.spanId) };
  try {
    if (!isObject(v)) throw new InvalidItemError(`log record ${show(v)} is not an object`);
    let body: unknown = null;
    const budget = valueBudget();
    charge(budget, itemArray(lr.attributes, 'attributes').length);
    if ('body' in lr) {
      try {
        body = anyValueAt(lr.body, 0, budget);
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
      attributes: attributesFromJson(lr.attributes, budget),
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
          return { scope: scopeFromJson(ss.scope, ss.schemaUrl, rs.schemaUrl), count: spans.length, span: (i: number) => spanFromJson(spans[i], invalid) };
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
          return { scope: scopeFromJson(sl.scope, sl.schemaUrl, rl.schemaUrl), count: records.length, logRecord: (i: number) => logRecordFromJson(records[i], invalid) };
        }),
      };
    }),
  }));
}

/** Decodes an OTLP/JSON ExportLogsServiceRequest. */
export function decodeLogsRequestJson(body: Uint8Array | string): DecodedLogsRequest {
  return materializeLogsRequest(decodeLogsRequestJsonLazy(body));
}
