import { createHash } from 'node:crypto';
import { DEFAULT_MAX_SPANS_PER_TRACE, DEFAULT_TRACE_COMPLETE_GRACE_MS, DEFAULT_TRACE_ENTRY_GRACE_MS } from '../../../shared/config/index.ts';
import { PermanentError } from '../../../shared/errors/index.ts';
import type { LogRecordEnvelope, SpanEnvelope, SpanRecord } from '../../../shared/schemas/index.ts';
import type { TraceParts } from './assemble-trace.ts';
import { isEntrySpan } from './entry-span.ts';
import { createHeldRecords, type HeldRecords, type RecordOrigin } from './held-records.ts';
import { createOffsetHeap } from './offset-heap.ts';
import { createMemoryByteStore } from './spill-store.ts';

export type { RecordOrigin } from './held-records.ts';

export interface TraceBufferOptions {
  /** Quiet time after the root span (and any span after it) before a trace is closed. */
  graceMs: number;
  /**
   * Quiet time before a *complete* trace is closed: its root has ended and no span points at a
   * parent that has not arrived. Default min(graceMs, DEFAULT_TRACE_COMPLETE_GRACE_MS). The long grace applies only when
   * something is missing.
   */
  completeGraceMs?: number;
  /**
   * Quiet time after an entry span when no root came (its parent is in a caller that exports
   * elsewhere). Longer than `graceMs`: an SDK exports in batches every few seconds, so a local
   * root may still be on its way. Default max(graceMs, DEFAULT_TRACE_ENTRY_GRACE_MS).
   */
  entryGraceMs?: number;
  /** A trace whose root never arrives is closed this long after its first span. */
  maxOpenMs: number;
  /** How long a closed trace is kept so that a late span re-opens it whole. */
  retainClosedMs: number;
  /** At most this many closed traces are kept (oldest dropped first). Default 10,000. */
  maxClosedTraces?: number;
  /** Ids of dropped closed traces remembered, so a very late span is not taken for a whole trace. Default 200,000. */
  maxEvictedIds?: number;
  /**
   * Spans kept per trace (the first to arrive, plus the root whenever it comes); later ones are
   * counted and left out, and the unit is flagged truncated. Log records: ten times as many.
   * Default DEFAULT_MAX_SPANS_PER_TRACE.
   */
  maxSpansPerTrace?: number;
  /** Where records are held while open or retained: spilled to disk in the services. Default: in memory. */
  records?: HeldRecords;
}

/** Log records (legacy message events, one per message) per span kept, on average, at most. */
const LOGS_PER_SPAN = 10;

// Records are held outside the heap (see held-records.ts; the trace keeps their ids) and parsed
// back only when the trace is assembled: tens of thousands of traces may be open at once.
/** The range of bus offsets holding a trace's records in one partition. */
interface OffsetRange {
  partition: number;
  firstOffset: bigint;
  lastOffset: bigint;
}

/** Its own range is the first record's partition's: records are keyed by trace id, so usually the only one. */
interface OpenTrace extends OffsetRange {
  otherPartitions?: OffsetRange[];
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
  /** Parent span ids that spans point at but that have not arrived. */
  missingParents: Set<string>;
  /** An entry span (SERVER, CONSUMER, agent run) ended: it stands in for a root never exported to us. */
  entrySeen: boolean;
  /** Taken for emission but not yet confirmed: still holds back the commit. */
  emitting: boolean;
  /** Records added so far, and when it was taken for emission: one that came in between is not in the unit. */
  records: number;
  recordsWhenTaken: number;
  /** Set when the trace was published and dropped before this span came: its unit is a fragment. */
  unitId?: string;
}

/** A published trace kept for a while, so that a late span re-opens it whole. */
interface ClosedTrace {
  project: string;
  spans: number[];
  logs: number[];
  dropped?: TraceParts['dropped'];
  closedAtMs: number;
}

export interface ReadyTrace extends TraceParts {
  reason: 'root-ended' | 'span-limit' | 'max-open' | 'shutdown';
}

/** A trace taken to become a unit; `parts` unpacks its records in steps (see partsInSteps). */
export interface TakenTrace {
  traceId: string;
  reason: ReadyTrace['reason'];
  parts: Generator<void, TraceParts>;
}

/** Records unpacked between two yields: about 2-4 ms of inflate and JSON.parse. */
const UNPACK_STEP = 200;

function logKey(l: LogRecordEnvelope): string {
  return `${l.span_id ?? ''}|${l.event_name}|${l.time_unix_nano}|${l.sequence}`;
}

/** A span's contents without the time it reached the collector (an exporter's retry differs only there). */
function fingerprint(s: SpanRecord): string {
  return createHash('sha256').update(JSON.stringify({ ...s, received_at_ms: 0 })).digest('base64');
}

/** How long a published trace's offset range holds the commit point below it (see `published`). */
const PUBLISHED_RETAIN_MS = 60_000;

/**
 * Open traces in memory, keyed by trace id. A span sent again with the same contents (an exporter
 * that retries after a lost answer) is kept once; another span with an id already taken is kept
 * too, as a copy the unit flags. At most `maxSpansPerTrace` spans are kept per trace. It also
 * reports, per partition, the lowest offset still needed, so the consumer commits only what has
 * been turned into units.
 */
export function createTraceBuffer(options: TraceBufferOptions) {
  const open = new Map<string, OpenTrace>();
  const closed = new Map<string, ClosedTrace>();
  const evicted = new Set<string>();
  const entryGraceMs = options.entryGraceMs ?? Math.max(options.graceMs, DEFAULT_TRACE_ENTRY_GRACE_MS);
  const completeGraceMs = options.completeGraceMs ?? Math.min(options.graceMs, DEFAULT_TRACE_COMPLETE_GRACE_MS);
  const byLastSeen = new Map<string, OpenTrace>();
  const heaps = new Map<number, ReturnType<typeof createOffsetHeap>>();
  /**
   * Offset spans [first, last] of published traces, per partition, sorted by first: a commit point
   * must never fall inside one, or a replay after a crash would re-read only the trace's tail and
   * publish that fragment in place of the whole unit. Each is kept for PUBLISHED_RETAIN_MS only:
   * under steady load traces overlap without a gap, and a chain of them reaching back for ever
   * would stop the commit (and, in embedded mode, fill the bus). Only a trace open for longer than
   * that can still be straddled by a commit point and replayed as a fragment after a crash.
   */
  const published = new Map<number, Array<{ first: bigint; last: bigint; atMs: number }>>();
  let lastPruneMs = 0;
  /** Records handed out in a trace's parts, to where they were read from (weak: as long as the caller holds them). */
  const origins = new WeakMap<object, RecordOrigin>();
  let lastFullScanMs = 0;
  const maxSpans = options.maxSpansPerTrace ?? DEFAULT_MAX_SPANS_PER_TRACE;
  const maxLogs = maxSpans * LOGS_PER_SPAN;
  const records = options.records ?? createHeldRecords(createMemoryByteStore());
  const copiesOf = (t: OpenTrace): number => t.copies?.length ?? 0;

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
  function addSpan(t: OpenTrace, s: SpanRecord, origin: RecordOrigin | undefined, held?: number): void {
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
    const id = held ?? records.hold(s, origin);
    copy?.seen.add(copy.fp);
    if (first !== undefined) (t.copies ??= []).push(id);
    else t.spans.set(s.span_id, id);
    t.missingParents.delete(s.span_id);
    if (s.parent_span_id && !t.spans.has(s.parent_span_id)) t.missingParents.add(s.parent_span_id);
    if (isRoot) t.rootSeen = true;
    else if (isEntrySpan(s)) t.entrySeen = true;
  }

  function addLog(t: OpenTrace, l: LogRecordEnvelope, origin: RecordOrigin | undefined): void {
    const key = logKey(l);
    const before = t.logs?.get(key);
    if (before === undefined && (t.logs?.size ?? 0) >= maxLogs) {
      t.droppedLogs++;
      return;
    }
    const id = records.hold(l, origin);
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

  function dropAll(ids: Iterable<number>): void {
    for (const id of ids) records.drop(id);
  }

  function add(envelope: SpanEnvelope, partition: number, offset: bigint, nowMs: number): void {
    refuseAnotherProject(envelope);
    const origin = { partition, offset: String(offset) };
    let t = open.get(envelope.trace_id);
    if (!t) {
      const created: OpenTrace = {
        traceId: envelope.trace_id,
        project: envelope.project ?? 'default',
        spans: new Map(),
        droppedSpans: 0,
        droppedLogs: 0,
        partition,
        firstOffset: offset,
        lastOffset: offset,
        firstSeenMs: nowMs,
        lastSeenMs: nowMs,
        rootSeen: false,
        missingParents: new Set(),
        entrySeen: false,
        emitting: false,
        records: 0,
        recordsWhenTaken: 0,
      };
      const before = closed.get(envelope.trace_id);
      if (before) {
        // A late span: the trace is assembled again, whole, and its unit replaced. Its records
        // move over as they are held; reading them back can fail (RetriableError) before anything changed.
        for (const id of before.spans) {
          const { record, origin: from } = records.read<SpanRecord>(id);
          addSpan(created, record, from, id);
        }
        for (const id of before.logs) (created.logs ??= new Map()).set(logKey(records.read<LogRecordEnvelope>(id).record), id);
        created.droppedSpans = before.dropped?.spans ?? 0;
        created.droppedLogs = before.dropped?.logs ?? 0;
      } else if (evicted.has(envelope.trace_id)) {
        // Its unit was published and its spans are gone: this span must not replace that unit.
        const first = envelope.kind === 'span' ? envelope.span_id : `log${envelope.sequence}`;
        created.unitId = `${envelope.trace_id}-late-${first}`;
        created.rootSeen = true;
      }
      // Held before the trace is: a record that cannot be held leaves the closed trace as it was.
      if (envelope.kind === 'span') addSpan(created, envelope, origin);
      else addLog(created, envelope, origin);
      if (before) closed.delete(envelope.trace_id);
      open.set(envelope.trace_id, (t = created));
      heapOf(partition).push(offset, t.traceId);
    } else {
      if (envelope.kind === 'span') addSpan(t, envelope, origin);
      else addLog(t, envelope, origin);
      const range = rangeOf(t, partition);
      if (!range) {
        (t.otherPartitions ??= []).push({ partition, firstOffset: offset, lastOffset: offset });
        heapOf(partition).push(offset, t.traceId);
      } else {
        if (offset > range.lastOffset) range.lastOffset = offset;
        if (offset < range.firstOffset) {
          range.firstOffset = offset;
          heapOf(partition).push(offset, t.traceId);
        }
      }
    }
    t.records++;
    t.lastSeenMs = nowMs;
    // Re-inserted on every record, so `byLastSeen` runs from the quietest trace to the busiest.
    byLastSeen.delete(t.traceId);
    byLastSeen.set(t.traceId, t);
  }

  function rangeOf(t: OpenTrace, partition: number): OffsetRange | undefined {
    return t.partition === partition ? t : t.otherPartitions?.find((r) => r.partition === partition);
  }

  function firstOffsetOf(t: OpenTrace | undefined, partition: number): bigint | undefined {
    return t && rangeOf(t, partition)?.firstOffset;
  }

  function heapOf(partition: number): ReturnType<typeof createOffsetHeap> {
    let heap = heaps.get(partition);
    if (!heap) heaps.set(partition, (heap = createOffsetHeap()));
    return heap;
  }

  /**
   * A trace belongs to the project whose key sent its first record: a record of another project
   * with its trace id never joins it (that would change the owner's unit). It is refused here while
   * the trace is remembered, and by the store (which refuses another project's unit with an
   * existing id) after. Thrown as permanent: the record goes to the dead-letter topic with the reason.
   */
  function refuseAnotherProject(envelope: SpanEnvelope): void {
    const owner = (open.get(envelope.trace_id) ?? closed.get(envelope.trace_id))?.project;
    if (owner === undefined) return;
    const project = envelope.project ?? 'default';
    if (owner !== project) {
      throw new PermanentError(`trace ${envelope.trace_id} belongs to project "${owner}"; a record sent with a key of project "${project}" is refused`);
    }
  }

  /** A record read back, remembering where it was read from (see originOf). */
  function unpacked<T extends object>(id: number): T {
    const { record, origin } = records.read<T>(id);
    if (origin) origins.set(record, origin);
    return record;
  }

  /**
   * A trace's parts, unpacked in steps of UNPACK_STEP records with a yield after each: a trace at
   * the cap holds 10,000 packed records, about 50 ms of inflate and JSON.parse in one go. The
   * records are the ones held when it was taken (later ones re-open it: see `confirm`).
   */
  function partsInSteps(t: OpenTrace): Generator<void, TraceParts> {
    // Taken now, not at the generator's first step.
    const packedSpans = [...t.spans.values()].concat(t.copies ?? []);
    const packedLogs = [...(t.logs?.values() ?? [])];
    const dropped = t.droppedSpans + t.droppedLogs > 0 ? { spans: t.droppedSpans, logs: t.droppedLogs, maxSpans } : undefined;
    const head = { traceId: t.traceId, ...(t.unitId ? { unitId: t.unitId } : {}), ...(dropped ? { dropped } : {}) };
    return unpackInSteps(head, packedSpans, packedLogs);
  }

  function* unpackInSteps(head: Omit<TraceParts, 'spans' | 'logs'>, packedSpans: number[], packedLogs: number[]): Generator<void, TraceParts> {
    const spans: SpanRecord[] = [];
    const logs: LogRecordEnvelope[] = [];
    for (let i = 0; i < packedSpans.length; i++) {
      spans.push(unpacked<SpanRecord>(packedSpans[i]));
      if ((i + 1) % UNPACK_STEP === 0) yield;
    }
    for (let i = 0; i < packedLogs.length; i++) {
      logs.push(unpacked<LogRecordEnvelope>(packedLogs[i]));
      if ((i + 1) % UNPACK_STEP === 0) yield;
    }
    return { ...head, spans, logs };
  }

  function readiness(t: OpenTrace, nowMs: number, force: boolean): ReadyTrace['reason'] | null {
    const quietMs = nowMs - t.lastSeenMs;
    if (t.rootSeen && force) return 'shutdown';
    if (t.rootSeen && quietMs >= (t.missingParents.size === 0 ? completeGraceMs : options.graceMs)) return 'root-ended';
    if (t.entrySeen && !force && quietMs >= entryGraceMs) return 'root-ended';
    // A trace at the cap gains nothing by waiting: it closes once quiet, so that its records are
    // committed (the in-process bus refuses new spans past its backlog, and a root that comes last
    // could never arrive). A later span, its root included, re-opens it like any late span.
    if (!force && t.spans.size + copiesOf(t) >= maxSpans && quietMs >= completeGraceMs) return 'span-limit';
    if (nowMs - t.firstSeenMs >= options.maxOpenMs) return 'max-open';
    return null;
  }

  /**
   * Traces ready to become units, each with the steps that unpack its records. They stay counted
   * in the low-water mark until `confirm`. Only the quiet end of `byLastSeen` is looked at on most
   * calls (a trace that got a record within the shortest grace cannot be ready); everything is
   * looked at once a second, for max-open.
   */
  function takeReadyInSteps(nowMs: number, force = false): TakenTrace[] {
    const taken: TakenTrace[] = [];
    const full = force || nowMs - lastFullScanMs >= 1_000;
    if (full) lastFullScanMs = nowMs;
    const shortest = Math.min(completeGraceMs, options.graceMs, entryGraceMs);
    for (const t of byLastSeen.values()) {
      if (!full && nowMs - t.lastSeenMs < shortest) break;
      if (t.emitting) continue;
      const reason = readiness(t, nowMs, force);
      if (!reason) continue;
      t.emitting = true;
      t.recordsWhenTaken = t.records;
      taken.push({ traceId: t.traceId, reason, parts: partsInSteps(t) });
    }
    return taken;
  }

  /** `takeReadyInSteps` with every trace unpacked at once (tests and benchmarks). */
  function takeReady(nowMs: number, force = false): ReadyTrace[] {
    return takeReadyInSteps(nowMs, force).map(({ reason, parts }) => {
      let step = parts.next();
      while (!step.done) step = parts.next();
      return { ...step.value, reason };
    });
  }

  /**
   * The unit of this trace is durably published. A record that came while it was built is not in
   * it: the trace then stays open (and holds back the commit) to be published again.
   */
  function confirm(traceId: string, nowMs: number): void {
    const t = open.get(traceId);
    if (!t) return;
    if (t.records !== t.recordsWhenTaken) {
      t.emitting = false;
      dropStale(t);
      return;
    }
    open.delete(traceId);
    byLastSeen.delete(traceId);
    dropStale(t);
    for (const r of [t, ...(t.otherPartitions ?? [])]) if (r.lastOffset > r.firstOffset) insertSpan(r.partition, r.firstOffset, r.lastOffset, nowMs);
    if (t.unitId) {
      // A fragment is not re-opened; a later span makes another one.
      dropAll(t.spans.values());
      dropAll(t.copies ?? []);
      dropAll(t.logs?.values() ?? []);
      return;
    }
    const dropped = t.droppedSpans + t.droppedLogs > 0 ? { spans: t.droppedSpans, logs: t.droppedLogs, maxSpans } : undefined;
    closed.set(traceId, { project: t.project, spans: [...t.spans.values()].concat(t.copies ?? []), logs: [...(t.logs?.values() ?? [])], ...(dropped ? { dropped } : {}), closedAtMs: nowMs });
    evicted.delete(traceId);
    const maxClosed = options.maxClosedTraces ?? 10_000;
    const maxEvicted = options.maxEvictedIds ?? 200_000;
    for (const [id, c] of closed) {
      if (nowMs - c.closedAtMs < options.retainClosedMs && closed.size <= maxClosed) break;
      closed.delete(id);
      dropAll(c.spans);
      dropAll(c.logs);
      evicted.add(id);
    }
    for (const id of evicted) {
      if (evicted.size <= maxEvicted) break;
      evicted.delete(id);
    }
  }

  /** Publishing failed: the trace goes back to waiting and is offered again on the next tick. */
  function release(traceId: string): void {
    const t = open.get(traceId);
    if (!t) return;
    t.emitting = false;
    dropStale(t);
  }

  function insertSpan(partition: number, first: bigint, last: bigint, nowMs: number): void {
    if (nowMs - lastPruneMs >= 1000) {
      lastPruneMs = nowMs;
      for (const [p, l] of published) published.set(p, l.filter((r) => nowMs - r.atMs < PUBLISHED_RETAIN_MS));
    }
    let list = published.get(partition);
    if (!list) published.set(partition, (list = []));
    let at = list.length;
    while (at > 0 && list[at - 1].first > first) at -= 1;
    list.splice(at, 0, { first, last, atMs: nowMs });
  }

  /**
   * Lowest offset in `partition` still needed: the first record of the oldest open trace, moved
   * down to the first record of any published trace that spans it (and so on), so that every trace
   * is either wholly below the commit or wholly re-read. Null when no trace is open.
   */
  function lowWaterMark(partition: number): bigint | null {
    const heap = heaps.get(partition);
    const list = published.get(partition);
    const openMin = heap ? heap.min((offset, traceId) => firstOffsetOf(open.get(traceId), partition) === offset) : null;
    if (openMin === null) {
      // Everything handled is committed: no published trace can straddle the commit.
      published.delete(partition);
      return null;
    }
    if (!list) return openMin;
    let mark = openMin;
    // Only spans that start below the oldest open trace can hold the mark lower (binary search).
    let lo = 0;
    let end = list.length;
    while (lo < end) {
      const mid = (lo + end) >> 1;
      if (list[mid].first < openMin) lo = mid + 1;
      else end = mid;
    }
    for (let i = end - 1; i >= 0; i--) if (list[i].last >= mark && list[i].first < mark) mark = list[i].first;
    // Spans wholly below the mark never matter again: the mark only moves up.
    if (list.length > 0 && list[0].last < mark) published.set(partition, list.filter((r) => r.last >= mark));
    return mark;
  }

  return {
    /** Where a record of a trace's parts was read from; undefined for one kept from before a re-open. */
    originOf: (record: object): RecordOrigin | undefined => origins.get(record),
    add,
    takeReady,
    takeReadyInSteps,
    confirm,
    release,
    lowWaterMark,
    openCount: () => open.size,
    closedCount: () => closed.size,
  };
}

export type TraceBuffer = ReturnType<typeof createTraceBuffer>;
