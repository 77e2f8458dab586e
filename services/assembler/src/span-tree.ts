import type { SpanRecord } from '../../../shared/contracts/schemas/index.ts';

/** OpenTelemetry's error status code. */
export const STATUS_ERROR = 2;

/** Nanosecond decimal string → milliseconds (precision below a millisecond is not needed here). */
export function nanosToMs(nanos: string): number {
  return nanos.length > 6 ? Number(nanos.slice(0, -6)) : 0;
}

/** Decimal nanoseconds compared as numbers, without a BigInt per comparison. */
export function compareNanos(a: string, b: string): number {
  // Decimal strings of one length compare as text; only leading zeros can make lengths lie.
  if (a.length !== b.length) {
    a = a.replace(/^0+(?=\d)/, '');
    b = b.replace(/^0+(?=\d)/, '');
    if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  }
  return a === b ? 0 : a < b ? -1 : 1;
}

export function byStart(a: SpanRecord, b: SpanRecord): number {
  return compareNanos(a.start_time_unix_nano, b.start_time_unix_nano);
}

export function byStartThenEnd(a: SpanRecord, b: SpanRecord): number {
  return byStart(a, b) || compareNanos(a.end_time_unix_nano, b.end_time_unix_nano);
}

/** Every span that has a descendant among `inner`: a wrapper whose figures repeat its children's. */
export function ancestorsOf(inner: readonly SpanRecord[], spans: readonly SpanRecord[]): Set<string> {
  const parentOf = new Map<string, string | undefined>();
  for (const s of spans) if (!parentOf.has(s.span_id)) parentOf.set(s.span_id, s.parent_span_id);
  const out = new Set<string>();
  for (const s of inner) {
    // A walk stops at a span already in the set: its ancestors are in it too. So every span is
    // visited once in all (linear, where a walk per span was quadratic on a deep chain), and a
    // cycle in the parent links (a hostile export) ends the walk.
    for (let p = s.parent_span_id; p && !out.has(p); p = parentOf.get(p)) out.add(p);
  }
  return out;
}

/** The first value `pick` finds in `spans` (empty strings skipped), or null. */
export function firstDefined<T>(spans: readonly SpanRecord[], pick: (s: SpanRecord) => T | undefined): T | null {
  for (const s of spans) {
    const v = pick(s);
    if (v !== undefined && v !== null && v !== '') return v;
  }
  return null;
}
