import type { SpanRecord } from '../../shared/contracts/schemas/index.ts';

// Oracles of the OTLP fuzz tests (otlp-pipeline.test.ts), computed independently of the code under test.

// --- The spans that must be rejected, read off the request as sent (OTLP/JSON shape) ---

const U64_MAX = 2n ** 64n - 1n;

/** A uint64 field's value, or null when it is none (absent is 0, as OTLP reads it). */
function u64Of(v: unknown): bigint | null {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'string') return /^\d+$/.test(v) && BigInt(v) <= U64_MAX ? BigInt(v) : null;
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v < 2 ** 64 ? BigInt(v) : null;
  return null;
}

function isInt32(v: unknown, names: RegExp): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string' && names.test(v)) return true;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
}

function isUint32(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 && n < 2 ** 32;
}

/** Levels of arrayValue/kvlistValue in an AnyValue ("a" is 0, ["a"] is 1). */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const any = v as { arrayValue?: { values?: unknown[] }; kvlistValue?: { values?: Array<{ value?: unknown }> } };
  if (any.arrayValue) return 1 + Math.max(0, ...(any.arrayValue.values ?? []).map(depthOf));
  if (any.kvlistValue) return 1 + Math.max(0, ...(any.kvlistValue.values ?? []).map((kv) => depthOf(kv.value)));
  return 0;
}

type RawSpan = Record<string, unknown> & { attributes?: Array<{ value?: unknown }>; events?: Array<{ timeUnixNano?: unknown; attributes?: Array<{ value?: unknown }> }> };

/**
 * What in a generated span as sent forces its rejection: one pattern per problem; the reason
 * given must name one of them (the decoder reports the first it meets). Empty: no such problem.
 */
function mustRejectFor(span: RawSpan): RegExp[] {
  const problems: RegExp[] = [];
  if (typeof span.traceId !== 'string' || !/^[0-9a-f]{32}$/i.test(span.traceId) || /^0+$/.test(span.traceId)) problems.push(/invalid trace id/);
  if (typeof span.spanId !== 'string' || !/^[0-9a-f]{16}$/i.test(span.spanId) || /^0+$/.test(span.spanId)) problems.push(/invalid span id/);
  const start = u64Of(span.startTimeUnixNano);
  const end = u64Of(span.endTimeUnixNano);
  if (start === null || start === 0n) problems.push(/startTimeUnixNano/);
  if (end === null || end === 0n || (start !== null && end < start)) problems.push(/endTimeUnixNano/);
  if (!isInt32(span.kind, /^SPAN_KIND_(UNSPECIFIED|INTERNAL|SERVER|CLIENT|PRODUCER|CONSUMER)$/)) problems.push(/kind/);
  if (!isInt32((span.status as { code?: unknown } | undefined)?.code, /^STATUS_CODE_(UNSET|OK|ERROR)$/)) problems.push(/status\.code/);
  if (!isUint32(span.droppedAttributesCount)) problems.push(/droppedAttributesCount/);
  const values = [...(span.attributes ?? []), ...(span.events ?? []).flatMap((e) => e.attributes ?? [])];
  if (values.some((kv) => depthOf(kv.value) > 64)) problems.push(/nested deeper than 64/);
  if ((span.events ?? []).some((e) => u64Of(e.timeUnixNano) === null)) problems.push(/timeUnixNano/);
  return problems;
}

export function mustRejectAll(request: Record<string, unknown>): RegExp[][] {
  const resourceSpans = request.resourceSpans as Array<{ scopeSpans: Array<{ spans: RawSpan[] }> }>;
  return resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map(mustRejectFor)));
}

// --- What the trace window keeps (services/assembler/src/open-trace.ts, `addSpan`) ---

export interface ExpectedUnit {
  spanCount: number;
  /** Spans left out for the cap. */
  dropped: number;
  /** Span ids kept more than once (different contents under one id), with their count. */
  duplicates: Map<string, number>;
}

/**
 * Spans in arrival order → what their unit holds. A span whose contents (all but the arrival
 * time) equal a copy kept under its id is a re-send: kept once. Every other span is kept, up to
 * `cap` spans, past which only the trace's first root still is; the others are counted as left
 * out, each time they are sent (the buffer keeps nothing of them to recognize them by).
 */
export function expectUnit(spans: readonly SpanRecord[], cap: number): ExpectedUnit {
  const keptContents = new Map<string, Set<string>>();
  let spanCount = 0;
  let dropped = 0;
  let rootKept = false;
  for (const s of spans) {
    const content = JSON.stringify({ ...s, received_at_ms: 0 });
    const contents = keptContents.get(s.span_id);
    if (contents?.has(content)) continue;
    const isRoot = s.parent_span_id === undefined;
    if (spanCount >= cap && !(isRoot && !rootKept)) {
      dropped++;
      continue;
    }
    spanCount++;
    if (contents) contents.add(content);
    else keptContents.set(s.span_id, new Set([content]));
    if (isRoot) rootKept = true;
  }
  const duplicates = new Map([...keptContents].filter(([, c]) => c.size > 1).map(([id, c]) => [id, c.size]));
  return { spanCount, dropped, duplicates };
}
