import { createHash } from 'node:crypto';
import { canonicalJson, isEntrySpan, type LogRecordEnvelope, type SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import type { RecordPosition } from '../../../shared/kit/stage/index.ts';
import type { HeldRecords } from './held-records.ts';

/** Log records (legacy message events, one per message) per span kept, on average, at most. */
const LOGS_PER_SPAN = 10;

// Records are held outside the heap (see held-records.ts; the trace keeps their ids) and parsed
// back only when the trace is assembled: tens of thousands of traces may be open at once.
export interface OpenTrace {
  /** What the trace window holds it under: its project and trace id (see traceKey in trace-window.ts). */
  key: string;
  traceId: string;
  /** The project of the key that sent the trace's first record: it owns the trace. */
  project: string;
  /** The first copy of every span id. */
  spans: Map<string, number>;
  /** Later spans with an id already taken and different contents: kept, and flagged on the unit. */
  copies?: number[];
  /** Fingerprints of the copies of each span id that arrived more than once (see `addSpan`); made on the first such copy. */
  fingerprints?: Map<string, Set<string>>;
  droppedSpans: number;
  droppedLogs: number;
  logs?: Map<string, number>;
  /** Records replaced by a re-sent log while the trace was being emitted: dropped once that ends. */
  stale?: number[];
  firstSeenMs: number;
  lastSeenMs: number;
  rootSeen: boolean;
  /** When the collector last refused an export with spans of this trace (see TraceWindow.refused). */
  refusedAtMs?: number;
  /** Parent span ids that spans point at but that have not arrived. */
  missingParents: Set<string>;
  /** An entry span (SERVER, CONSUMER, agent run) ended: it stands in for a root never exported to us. */
  entrySeen: boolean;
  /** Taken to be built but not yet confirmed or released. */
  emitting: boolean;
  /** Set when the trace was published and dropped before this span came: its unit is a fragment. */
  unitId?: string;
  /** Set when another project held this trace id first: its unit is `<trace id>@<project>`. */
  projectUnitId?: string;
  /** Packed bytes of the records held for it (see open-caps.ts). */
  bytes: number;
}

export function newOpenTrace(key: string, traceId: string, project: string, nowMs: number): OpenTrace {
  return { key, traceId, project, spans: new Map(), droppedSpans: 0, droppedLogs: 0, firstSeenMs: nowMs, lastSeenMs: nowMs, rootSeen: false, missingParents: new Set(), entrySeen: false, emitting: false, bytes: 0 };
}

export function logKey(l: LogRecordEnvelope): string {
  return `${l.span_id ?? ''}|${l.event_name}|${l.time_unix_nano}|${l.sequence}`;
}

/**
 * A span's contents without the time it reached the collector (an exporter's retry differs only
 * there), whatever the order of its keys: a record read back from where it is held, or replayed
 * from the bus, need not list its fields in the order the collector wrote them.
 */
function fingerprint(s: SpanRecord): string {
  return createHash('sha256').update(canonicalJson({ ...s, received_at_ms: 0 })).digest('base64');
}

/**
 * Whether `s` is an exact re-send of one of the spans held under `ids` (an exporter retrying a
 * request whose answer it lost): read back one by one, so only for a trace that is not open.
 */
export function isResendOf(records: HeldRecords, ids: readonly number[], s: SpanRecord): boolean {
  let fp: string | undefined;
  for (const id of ids) {
    const held = records.read<SpanRecord>(id).record;
    if (held.span_id === s.span_id && fingerprint(held) === (fp ??= fingerprint(s))) return true;
  }
  return false;
}

const copiesOf = (t: OpenTrace): number => t.copies?.length ?? 0;

/** Ids of the span records a trace holds: first copies, then the differing copies. */
export const spanIdsOf = (t: OpenTrace): number[] => [...t.spans.values()].concat(t.copies ?? []);

export function droppedOf(t: OpenTrace, maxSpans: number): { spans: number; logs: number; maxSpans: number } | undefined {
  return t.droppedSpans + t.droppedLogs > 0 ? { spans: t.droppedSpans, logs: t.droppedLogs, maxSpans } : undefined;
}

/**
 * What goes into an open trace. A span sent again with the same contents (an exporter that
 * retries after a lost answer) is kept once; another span with an id already taken is kept too,
 * as a copy the unit flags. At most `maxSpans` spans are kept per trace (the first to arrive, plus
 * the root whenever it comes); later ones are counted and left out. Log records: ten times as many.
 */
export function createTraceContents(records: HeldRecords, maxSpans: number) {
  const maxLogs = maxSpans * LOGS_PER_SPAN;

  /**
   * The fingerprints of the copies kept under `s`'s id, and `s`'s own; null when `s` is an exact
   * re-send of one of them. Only kept copies are remembered: a span left out for the cap is
   * counted again when it is sent again, whether or not the trace closed in between (a closed
   * trace keeps its kept spans only).
   */
  function newCopy(t: OpenTrace, first: number, s: SpanRecord): { seen: Set<string>; fp: string } | null {
    t.fingerprints ??= new Map();
    let seen = t.fingerprints.get(s.span_id);
    if (!seen) t.fingerprints.set(s.span_id, (seen = new Set([fingerprint(records.read<SpanRecord>(first).record)])));
    const fp = fingerprint(s);
    return seen.has(fp) ? null : { seen, fp };
  }

  /**
   * `held`: the span is held already (a closed trace re-opened), under this id; it is taken back
   * whatever the cap. Otherwise it is held here, before anything changes: a record that cannot be
   * held (disk full) throws a RetriableError and leaves the trace as it was.
   */
  function addSpan(t: OpenTrace, s: SpanRecord, at: RecordPosition | undefined, held?: number): void {
    const first = t.spans.get(s.span_id);
    const copy = first !== undefined ? newCopy(t, first, s) : undefined;
    if (copy === null) return;
    const isRoot = !s.parent_span_id;
    // Past the cap a span is only counted, except the trace's first root: it names the run, and a
    // root ends last, so it is usually the last span to arrive.
    if (held === undefined && t.spans.size + copiesOf(t) >= maxSpans && !(isRoot && !t.rootSeen)) {
      t.droppedSpans++;
      t.missingParents.delete(s.span_id);
      if (!isRoot && isEntrySpan(s)) t.entrySeen = true;
      return;
    }
    let id = held;
    if (id === undefined) {
      const sized = records.holdSized(s, at);
      id = sized.id;
      t.bytes += sized.bytes;
    }
    copy?.seen.add(copy.fp);
    if (first !== undefined) (t.copies ??= []).push(id);
    else t.spans.set(s.span_id, id);
    t.missingParents.delete(s.span_id);
    if (s.parent_span_id && !t.spans.has(s.parent_span_id)) t.missingParents.add(s.parent_span_id);
    if (isRoot) t.rootSeen = true;
    else if (isEntrySpan(s)) t.entrySeen = true;
  }

  function addLog(t: OpenTrace, l: LogRecordEnvelope, at: RecordPosition | undefined): void {
    const key = logKey(l);
    const before = t.logs?.get(key);
    if (before === undefined && (t.logs?.size ?? 0) >= maxLogs) {
      t.droppedLogs++;
      return;
    }
    const { id, bytes } = records.holdSized(l, at);
    t.bytes += bytes;
    (t.logs ??= new Map()).set(key, id);
    if (before === undefined) return;
    // Parts being unpacked may still read the one replaced.
    if (t.emitting) (t.stale ??= []).push(before);
    else records.drop(before);
  }

  function dropStale(t: OpenTrace): void {
    for (const id of t.stale ?? []) records.drop(id);
    t.stale = undefined;
  }

  return { addSpan, addLog, dropStale, isFull: (t: OpenTrace): boolean => t.spans.size + copiesOf(t) >= maxSpans };
}

