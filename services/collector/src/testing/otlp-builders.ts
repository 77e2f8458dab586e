import Long from 'long';
import { opentelemetry } from '../generated/otlp.js';

// Builders for OTLP requests in the JSON shape, and their protobuf encoding, for tests and bench.

export type JsonAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string | number }
  | { doubleValue: number }
  | { arrayValue: { values: JsonAnyValue[] } }
  | { kvlistValue: { values: JsonKeyValue[] } }
  | { bytesValue: string };
export interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}

/** Plain JS → AnyValue: strings, numbers (integers → intValue), booleans, arrays, objects. */
export function anyValue(v: unknown): JsonAnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: v } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  if (typeof v === 'object' && v !== null) return { kvlistValue: { values: kvs(v as Record<string, unknown>) } };
  return { stringValue: String(v) };
}

export function kvs(attrs: Record<string, unknown>): JsonKeyValue[] {
  return Object.entries(attrs).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export interface SpanSpec {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  start?: string;
  end?: string;
  attributes?: Record<string, unknown>;
  events?: Array<{ name: string; timeUnixNano?: string; attributes?: Record<string, unknown> }>;
  status?: { code: number; message?: string };
  droppedAttributesCount?: number;
}

export const TRACE_ID = '5b8efff798038103d269b633813fc60c';
export const SPAN_ID = 'eee19b7ec3c1b174';

export function jsonSpan(s: SpanSpec): Record<string, unknown> {
  const span: Record<string, unknown> = {
    traceId: s.traceId ?? TRACE_ID,
    spanId: s.spanId ?? SPAN_ID,
    name: s.name ?? 'chat gpt-4o',
    kind: s.kind ?? 3,
    startTimeUnixNano: s.start ?? '1700000000000000000',
    endTimeUnixNano: s.end ?? '1700000001000000000',
    attributes: kvs(s.attributes ?? {}),
    events: (s.events ?? []).map((e) => ({ name: e.name, timeUnixNano: e.timeUnixNano ?? '1700000000500000000', attributes: kvs(e.attributes ?? {}) })),
    status: s.status ?? {},
  };
  if (s.parentSpanId) span.parentSpanId = s.parentSpanId;
  if (s.droppedAttributesCount) span.droppedAttributesCount = s.droppedAttributesCount;
  return span;
}

export function jsonTraceRequest(
  spans: SpanSpec[],
  resource: Record<string, unknown> = { 'service.name': 'weather-agent' },
  scope: { name: string; version?: string } = { name: 'test-scope', version: '1.0.0' },
): Record<string, unknown> {
  return { resourceSpans: [{ resource: { attributes: kvs(resource) }, scopeSpans: [{ scope, spans: spans.map(jsonSpan) }] }] };
}

export interface LogSpec {
  traceId?: string;
  spanId?: string;
  eventName?: string;
  timeUnixNano?: string;
  body?: unknown;
  attributes?: Record<string, unknown>;
}

export function jsonLogsRequest(records: LogSpec[], resource: Record<string, unknown> = { 'service.name': 'weather-agent' }): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: { attributes: kvs(resource) },
        scopeLogs: [
          {
            scope: { name: 'test-logs' },
            logRecords: records.map((r) => {
              const rec: Record<string, unknown> = {
                timeUnixNano: r.timeUnixNano ?? '1700000000600000000',
                attributes: kvs(r.attributes ?? {}),
                traceId: r.traceId ?? TRACE_ID,
                spanId: r.spanId ?? SPAN_ID,
              };
              if (r.eventName) rec.eventName = r.eventName;
              if (r.body !== undefined) rec.body = anyValue(r.body);
              return rec;
            }),
          },
        ],
      },
    ],
  };
}

// --- JSON shape → protobuf ---

type Obj = Record<string, unknown>;

function pbAny(v: Obj): Obj {
  if ('intValue' in v) return { intValue: Long.fromValue(String(v.intValue)) };
  if ('bytesValue' in v) return { bytesValue: Buffer.from(String(v.bytesValue), 'base64') };
  if ('arrayValue' in v) return { arrayValue: { values: ((v.arrayValue as Obj).values as Obj[]).map(pbAny) } };
  if ('kvlistValue' in v) return { kvlistValue: { values: pbKvs((v.kvlistValue as Obj).values as Obj[]) } };
  return v;
}

function pbKvs(list: Obj[] | undefined): Obj[] {
  return (list ?? []).map((kv) => ({ key: kv.key, value: pbAny(kv.value as Obj) }));
}

const id = (hex: unknown): Buffer | undefined => (typeof hex === 'string' && hex ? Buffer.from(hex, 'hex') : undefined);
const u64 = (v: unknown): Long | undefined => (typeof v === 'string' || typeof v === 'number' ? Long.fromString(String(v), true) : undefined);

function pbResource(r: Obj | undefined): Obj {
  return { attributes: pbKvs((r?.attributes as Obj[] | undefined) ?? []) };
}

function pbSpan(s: Obj): Obj {
  return {
    ...s,
    traceId: id(s.traceId),
    spanId: id(s.spanId),
    parentSpanId: id(s.parentSpanId),
    startTimeUnixNano: u64(s.startTimeUnixNano),
    endTimeUnixNano: u64(s.endTimeUnixNano),
    attributes: pbKvs(s.attributes as Obj[]),
    events: ((s.events as Obj[] | undefined) ?? []).map((e) => ({ ...e, timeUnixNano: u64(e.timeUnixNano), attributes: pbKvs(e.attributes as Obj[]) })),
  };
}

export function encodeTraceRequest(json: Obj): Uint8Array {
  const msg = {
    resourceSpans: ((json.resourceSpans as Obj[] | undefined) ?? []).map((rs) => ({
      resource: pbResource(rs.resource as Obj),
      scopeSpans: ((rs.scopeSpans as Obj[] | undefined) ?? []).map((ss) => ({ scope: ss.scope, spans: ((ss.spans as Obj[] | undefined) ?? []).map(pbSpan) })),
    })),
  };
  return opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.encode(msg as never).finish();
}

// --- AnyValues nested deeper than any recursive encoder (ours, JSON.stringify, protobufjs) goes ---

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** One length-delimited protobuf field (hand-built wire bytes, for shapes no encoder makes). */
export function protobufField(num: number, payload: Uint8Array): Buffer {
  return Buffer.concat([varint((num << 3) | 2), varint(payload.length), payload]);
}

/** The plain value `deepAnyValue*` encode: `depth` levels, kvlist `{k: …}` outermost, then array `[…]`, alternating, around "leaf". */
export function deepValue(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = depth - 1; i >= 0; i--) v = i % 2 === 0 ? { k: v } : [v];
  return v;
}

/** OTLP/JSON text of `deepValue(depth)` as an AnyValue, built as text. */
export function deepAnyValueJson(depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 === 0 ? '{"kvlistValue":{"values":[{"key":"k","value":' : '{"arrayValue":{"values":[');
    close.push(i % 2 === 0 ? '}]}}' : ']}}');
  }
  return `${open.join('')}{"stringValue":"leaf"}${close.reverse().join('')}`;
}

/** Protobuf bytes of `deepValue(depth)` as an AnyValue. */
export function deepAnyValueProtobuf(depth: number): Buffer {
  let any = protobufField(1, Buffer.from('leaf'));
  for (let i = depth - 1; i >= 0; i--) {
    any = i % 2 === 0 ? protobufField(6, protobufField(1, Buffer.concat([protobufField(1, Buffer.from('k')), protobufField(2, any)]))) : protobufField(5, protobufField(1, any));
  }
  return any;
}

/**
 * An OTLP/JSON trace request (one resource, one scope, as jsonTraceRequest makes) with raw
 * attributes added to some spans: as JSON text and as protobuf bytes.
 */
export function traceRequestWithRawAttributes(json: Obj, raw: Array<{ span: number; key: string; json: string; protobuf: Uint8Array }>): { json: string; protobuf: Buffer } {
  const rs = (json.resourceSpans as Obj[])[0];
  const ss = (rs.scopeSpans as Obj[])[0];
  const spans = ss.spans as Obj[];
  const marked = spans.map((s, i) => ({
    ...s,
    attributes: [...((s.attributes as Obj[] | undefined) ?? []), ...raw.filter((r) => r.span === i).map((r, j) => ({ key: r.key, value: { stringValue: `@@raw-${i}-${j}@@` } }))],
  }));
  let text = JSON.stringify({ ...json, resourceSpans: [{ ...rs, scopeSpans: [{ ...ss, spans: marked }] }] });
  for (const [i] of spans.entries()) {
    for (const [j, r] of raw.filter((x) => x.span === i).entries()) text = text.replace(`{"stringValue":"@@raw-${i}-${j}@@"}`, () => r.json);
  }
  const Span = opentelemetry.proto.trace.v1.Span;
  const spanBytes = spans.map((s, i) =>
    Buffer.concat([Span.encode(pbSpan(s) as never).finish(), ...raw.filter((r) => r.span === i).map((r) => protobufField(9, Buffer.concat([protobufField(1, Buffer.from(r.key)), protobufField(2, r.protobuf)])))]),
  );
  const scope = opentelemetry.proto.common.v1.InstrumentationScope.encode((ss.scope ?? {})).finish();
  const resource = opentelemetry.proto.resource.v1.Resource.encode(pbResource(rs.resource as Obj)).finish();
  const scopeSpans = Buffer.concat([protobufField(1, scope), ...spanBytes.map((b) => protobufField(2, b))]);
  return { json: text, protobuf: protobufField(1, Buffer.concat([protobufField(1, resource), protobufField(2, scopeSpans)])) };
}

export function encodeLogsRequest(json: Obj): Uint8Array {
  const msg = {
    resourceLogs: ((json.resourceLogs as Obj[] | undefined) ?? []).map((rl) => ({
      resource: pbResource(rl.resource as Obj),
      scopeLogs: ((rl.scopeLogs as Obj[] | undefined) ?? []).map((sl) => ({
        scope: sl.scope,
        logRecords: ((sl.logRecords as Obj[] | undefined) ?? []).map((r) => ({
          ...r,
          traceId: id(r.traceId),
          spanId: id(r.spanId),
          timeUnixNano: u64(r.timeUnixNano),
          attributes: pbKvs(r.attributes as Obj[]),
          body: r.body ? pbAny(r.body as Obj) : undefined,
        })),
      })),
    })),
  };
  return opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest.encode(msg as never).finish();
}
