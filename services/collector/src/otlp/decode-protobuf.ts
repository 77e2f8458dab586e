import protobuf from 'protobufjs/minimal.js';
import { opentelemetry } from '../generated/otlp.js';
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
import { attributeLabel, charge, MAX_ANY_VALUE_DEPTH, MAX_VALUES_PER_ITEM, setAttribute, tooDeep, tooManyValues, valueBudget, type ValueBudget } from './any-value.ts';
import { bytesFields, countField, countLogRecordValues, countSpanValues } from './proto-scan.ts';

const pb = opentelemetry.proto;
type PbAnyValue = opentelemetry.proto.common.v1.IAnyValue;
type PbKeyValue = opentelemetry.proto.common.v1.IKeyValue;
/** gen-proto.sh patches AnyValue.decode to keep a nested array or kvlist as its raw bytes. */
type LazyAnyValue = PbAnyValue & { arrayBytes?: Uint8Array; kvlistBytes?: Uint8Array };
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

/** Decodes the raw bytes of one nested ArrayValue / KeyValueList (one level: its AnyValues stay lazy). */
function nested<T>(what: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw new InvalidItemError(`undecodable ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Converts a protobuf AnyValue enclosed by `depth` arrays/kvlists to a plain JS value (see
 * Attributes); the entries of arrays and kvlists are counted and taken from `budget` before they
 * are decoded.
 */
function anyValueAt(v: LazyAnyValue | null | undefined, depth: number, budget: ValueBudget): unknown {
  if (!v) return null;
  if (v.stringValue != null) return v.stringValue;
  if (v.intValue != null) return i64(v.intValue);
  if (v.boolValue != null) return v.boolValue;
  if (v.doubleValue != null) return v.doubleValue;
  if (v.arrayBytes != null) {
    if (depth >= MAX_ANY_VALUE_DEPTH) throw tooDeep();
    const bytes = v.arrayBytes;
    charge(budget, countField(bytes, 0, bytes.length, 1));
    const values: LazyAnyValue[] = nested('arrayValue', () => pb.common.v1.ArrayValue.decode(bytes).values ?? []);
    const out = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) out[i] = anyValueAt(values[i], depth + 1, budget);
    return out;
  }
  if (v.kvlistBytes != null) {
    if (depth >= MAX_ANY_VALUE_DEPTH) throw tooDeep();
    const bytes = v.kvlistBytes;
    charge(budget, countField(bytes, 0, bytes.length, 1));
    const out: Attributes = {};
    for (const kv of nested('kvlistValue', () => pb.common.v1.KeyValueList.decode(bytes).values ?? [])) {
      if (kv.key) setAttribute(out, kv.key, anyValueAt(kv.value, depth + 1, budget));
    }
    return out;
  }
  if (v.bytesValue != null) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

/**
 * Top-level attributes (their number already taken from `budget` by the caller, nested entries
 * are taken here); an error names the attribute (`label "key": reason`).
 */
function attributesFromProto(kvs: PbKeyValue[] | null | undefined, budget: ValueBudget, label = 'attribute'): Attributes {
  const out: Attributes = {};
  if (!kvs) return out;
  for (const kv of kvs) {
    if (!kv.key) continue;
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
function resourceFromProto(r: opentelemetry.proto.resource.v1.IResource | null | undefined): { resource: DecodedResource; invalid?: string } {
  try {
    const budget = valueBudget();
    charge(budget, r?.attributes?.length ?? 0, 'resource');
    return { resource: { attributes: attributesFromProto(r?.attributes, budget, 'resource attribute'), droppedAttributesCount: r?.droppedAttributesCount ?? 0 } };
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    return { resource: { attributes: {}, droppedAttributesCount: 0 }, invalid: err.message };
  }
}

/** The scope, with the schema URL of its scopeSpans (else of its resourceSpans), which says which convention names to expect. */
function scopeFromProto(s: opentelemetry.proto.common.v1.IInstrumentationScope | null | undefined, ...schemaUrls: Array<string | null | undefined>): DecodedScope {
  const schemaUrl = schemaUrls.find((u) => typeof u === 'string' && u !== '');
  return schemaUrl ? { name: s?.name ?? '', version: s?.version ?? '', schemaUrl } : { name: s?.name ?? '', version: s?.version ?? '' };
}

/** As countSpanValues, for a span protobufjs has decoded already. */
function decodedSpanValues(s: opentelemetry.proto.trace.v1.ISpan): number {
  let n = (s.attributes?.length ?? 0) + (s.events?.length ?? 0) + (s.links?.length ?? 0);
  for (const e of s.events ?? []) n += e.attributes?.length ?? 0;
  for (const l of s.links ?? []) n += l.attributes?.length ?? 0;
  return n;
}

/** `budget`: what is left after the span's attributes, events and links were counted (nested entries are taken as they are reached). */
function spanFromProto(s: opentelemetry.proto.trace.v1.ISpan, resourceInvalid: string | undefined, budget: ValueBudget): DecodedSpan {
  const span: DecodedSpan = {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    parentSpanId: hex(s.parentSpanId),
    name: s.name ?? '',
    kind: s.kind ?? 0,
    startTimeUnixNano: u64(s.startTimeUnixNano),
    endTimeUnixNano: u64(s.endTimeUnixNano),
    attributes: {},
    droppedAttributesCount: s.droppedAttributesCount ?? 0,
    events: [],
    status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
  };
  try {
    span.attributes = attributesFromProto(s.attributes, budget);
    if (s.events) {
      for (const e of s.events) {
        const name = e.name ?? '';
        const label = `event ${JSON.stringify(name.slice(0, 64))} attribute`;
        span.events.push({ name, timeUnixNano: u64(e.timeUnixNano), attributes: attributesFromProto(e.attributes, budget, label) });
      }
    }
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    span.attributes = {};
    span.events = [];
    span.invalid = err.message;
  }
  if (resourceInvalid) span.invalid = resourceInvalid;
  return span;
}

/** `budget`: what is left after the record's attributes were counted. */
function logRecordFromProto(lr: opentelemetry.proto.logs.v1.ILogRecord, resourceInvalid: string | undefined, budget: ValueBudget): DecodedLogRecord {
  const record: DecodedLogRecord = {
    timeUnixNano: u64(lr.timeUnixNano),
    observedTimeUnixNano: u64(lr.observedTimeUnixNano),
    eventName: lr.eventName ?? '',
    body: null,
    attributes: {},
    droppedAttributesCount: lr.droppedAttributesCount ?? 0,
    traceId: hex(lr.traceId),
    spanId: hex(lr.spanId),
  };
  try {
    if (lr.body) {
      try {
        record.body = anyValueAt(lr.body, 0, budget);
      } catch (err) {
        if (err instanceof InvalidItemError) throw new InvalidItemError(`body: ${err.message}`, { cause: err });
        throw err;
      }
    }
    record.attributes = attributesFromProto(lr.attributes, budget);
  } catch (err) {
    if (!(err instanceof InvalidItemError)) throw err;
    record.body = null;
    record.attributes = {};
    record.invalid = err.message;
  }
  if (resourceInvalid) record.invalid = resourceInvalid;
  return record;
}

/** A span refused before it was decoded, named by its ids (Span fields 1, 2 and 4). */
function refusedSpanOf(ids: Map<number, Uint8Array>, invalid: string): DecodedSpan {
  return refusedSpan({ traceId: hex(ids.get(1)), spanId: hex(ids.get(2)), parentSpanId: hex(ids.get(4)) }, invalid);
}

/** As refusedSpanOf, for a log record (LogRecord fields 9 and 10). */
function refusedLogRecord(ids: Map<number, Uint8Array>, invalid: string): DecodedLogRecord {
  return { timeUnixNano: '0', observedTimeUnixNano: '0', eventName: '', body: null, attributes: {}, droppedAttributesCount: 0, traceId: hex(ids.get(9)), spanId: hex(ids.get(10)), invalid };
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

/** Where gen-proto.sh's patch leaves a span or log record while `lazyItems` is set. */
interface ItemPlace {
  offset: number;
  length: number;
}

/** Nesting of a span (or log record) in its export (request, resource, scope): protobufjs counts it against its recursion limit. */
const ITEM_DEPTH = 3;

const lazyRoot = opentelemetry as unknown as { lazyItems?: boolean };

/**
 * Decodes an export with its spans (log records) left as places in the buffer. When that fails,
 * the export is decoded again whole, so that the error is the one a whole decode meets first (it
 * may lie in a span before the place where the lazy decode failed): the answer does not change.
 */
function decodeExport<T>(what: string, decode: () => T): T {
  try {
    lazyRoot.lazyItems = true;
    return decode();
  } catch {
    lazyRoot.lazyItems = false;
    return decodeOrThrow(what, decode);
  } finally {
    lazyRoot.lazyItems = false;
  }
}

/**
 * Decodes one span (log record) at its place. The export's structure around it was decoded
 * without error, so the first item that fails is where a whole decode would have failed: the
 * export is refused with that error, as before.
 */
function decodeItem<T>(what: string, buffer: Uint8Array, place: ItemPlace, decode: (reader: protobuf.Reader, length: number, end: undefined, depth: number) => T): T {
  return decodeOrThrow(what, () => {
    const reader = protobuf.Reader.create(buffer);
    reader.pos = place.offset;
    return decode(reader, place.length, undefined, ITEM_DEPTH);
  });
}

/**
 * A binary ExportTraceServiceRequest with each span decoded by protobufjs and turned into plain
 * values only when asked for (a DecodeError when the export, or one of its spans, cannot be
 * decoded). An empty body is an empty (valid) request.
 */
export function decodeTraceRequestProtobufLazy(body: Uint8Array): LazyTraceRequest {
  const what = 'ExportTraceServiceRequest';
  const buffer = body.length ? asBuffer(body) : EMPTY;
  const req = decodeExport(what, () => pb.collector.trace.v1.ExportTraceServiceRequest.decode(buffer));
  const decodeSpan = pb.trace.v1.Span.decode.bind(pb.trace.v1.Span) as (reader: protobuf.Reader, length: number, end: undefined, depth: number) => opentelemetry.proto.trace.v1.Span;
  return {
    resourceSpans: (req.resourceSpans ?? []).map((rs) => {
      const { resource, invalid } = resourceFromProto(rs.resource);
      return {
        resource,
        scopeSpans: (rs.scopeSpans ?? []).map((ss) => {
          const spans = (ss.spans ?? []) as unknown as Array<ItemPlace | opentelemetry.proto.trace.v1.ISpan>;
          const span = (i: number): DecodedSpan => {
            const s = spans[i];
            // Counted before protobufjs builds an object per value: a span over the budget is never decoded.
            const values = isPlace(s) ? countSpanValues(buffer, s.offset, s.offset + s.length) : decodedSpanValues(s);
            if (values > MAX_VALUES_PER_ITEM) return refusedSpanOf(isPlace(s) ? bytesFields(buffer, s.offset, s.offset + s.length, [1, 2, 4]) : new Map<number, Uint8Array>(), tooManyValues().message);
            const budget = valueBudget();
            charge(budget, values);
            return spanFromProto(isPlace(s) ? decodeItem(what, buffer, s, decodeSpan) : s, invalid, budget);
          };
          return { scope: scopeFromProto(ss.scope, ss.schemaUrl, rs.schemaUrl), count: spans.length, span };
        }),
      };
    }),
  };
}

function isPlace(item: object): item is ItemPlace {
  // A decoded message is an instance of its generated class; a place is a plain object.
  return Object.getPrototypeOf(item) === Object.prototype;
}

/** Decodes a binary ExportTraceServiceRequest. An empty body is an empty (valid) request. */
export function decodeTraceRequestProtobuf(body: Uint8Array): DecodedTraceRequest {
  return materializeTraceRequest(decodeTraceRequestProtobufLazy(body));
}

/** As decodeTraceRequestProtobufLazy, for an ExportLogsServiceRequest. */
export function decodeLogsRequestProtobufLazy(body: Uint8Array): LazyLogsRequest {
  const what = 'ExportLogsServiceRequest';
  const buffer = body.length ? asBuffer(body) : EMPTY;
  const req = decodeExport(what, () => pb.collector.logs.v1.ExportLogsServiceRequest.decode(buffer));
  const decodeRecord = pb.logs.v1.LogRecord.decode.bind(pb.logs.v1.LogRecord) as (reader: protobuf.Reader, length: number, end: undefined, depth: number) => opentelemetry.proto.logs.v1.LogRecord;
  return {
    resourceLogs: (req.resourceLogs ?? []).map((rl) => {
      const { resource, invalid } = resourceFromProto(rl.resource);
      return {
        resource,
        scopeLogs: (rl.scopeLogs ?? []).map((sl) => {
          const records = (sl.logRecords ?? []) as unknown as Array<ItemPlace | opentelemetry.proto.logs.v1.ILogRecord>;
          const logRecord = (i: number): DecodedLogRecord => {
            const r = records[i];
            const values = isPlace(r) ? countLogRecordValues(buffer, r.offset, r.offset + r.length) : (r.attributes?.length ?? 0);
            if (values > MAX_VALUES_PER_ITEM) return refusedLogRecord(isPlace(r) ? bytesFields(buffer, r.offset, r.offset + r.length, [9, 10]) : new Map<number, Uint8Array>(), tooManyValues().message);
            const budget = valueBudget();
            charge(budget, values);
            return logRecordFromProto(isPlace(r) ? decodeItem(what, buffer, r, decodeRecord) : r, invalid, budget);
          };
          return { scope: scopeFromProto(sl.scope, sl.schemaUrl, rl.schemaUrl), count: records.length, logRecord };
        }),
      };
    }),
  };
}

/** Decodes a binary ExportLogsServiceRequest. */
export function decodeLogsRequestProtobuf(body: Uint8Array): DecodedLogsRequest {
  return materializeLogsRequest(decodeLogsRequestProtobufLazy(body));
}
