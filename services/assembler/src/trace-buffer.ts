import { PermanentError } from '../../../shared/errors/index.ts';
import type { LogRecordEnvelope, SpanEnvelope, SpanRecord } from '../../../shared/schemas/index.ts';
import type { TraceParts } from './assemble-trace.ts';
import { isEntrySpan } from './entry-span.ts';
import { createOffsetHeap } from './offset-heap.ts';

export interface TraceBufferOptions {
  /** Quiet time after the root span (and any span after it) before a trace is closed. */
  graceMs: number;
  /**
   * Quiet time before a *complete* trace is closed: its root has ended and no span points at a
   * parent that has not arrived. Default min(graceMs, 200). The long grace applies only when
   * something is missing.
   */
  completeGraceMs?: number;
  /**
   * Quiet time after an entry span when no root came (its parent is in a caller that exports
   * elsewhere). Longer than `graceMs`: an SDK exports in batches every few seconds, so a local
   * root may still be on its way. Default max(graceMs, 10 s).
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
}

interface OpenTrace {
  traceId: string;
  spans: Map<string, SpanRecord>;
  logs: Map<string, LogRecordEnvelope>;
  /** Lowest bus offset holding one of this trace's records, per partition. */
  firstOffsets: Map<number, bigint>;
  firstSeenMs: number;
  lastSeenMs: number;
  rootSeen: boolean;
  /** Parent span ids that spans point at but that have not arrived. */
  missingParents: Set<string>;
  /** An entry span (SERVER, CONSUMER, agent run) ended: it stands in for a root never exported to us. */
  entrySeen: boolean;
  /** Taken for emission but not yet confirmed: still holds back the commit. */
  emitting: boolean;
  /** Set when the trace was published and dropped before this span came: its unit is a fragment. */
  unitId?: string;
}

export interface ReadyTrace extends TraceParts {
  reason: 'root-ended' | 'max-open' | 'shutdown';
}

function logKey(l: LogRecordEnvelope): string {
  return `${l.span_id ?? ''}|${l.event_name}|${l.time_unix_nano}|${l.sequence}`;
}

/**
 * Open traces in memory, keyed by trace id. Records are de-duplicated by span id (an exporter that
 * retries after a lost answer sends the same span twice). It also reports, per partition, the
 * lowest offset still needed, so the consumer commits only what has been turned into units.
 */
export function createTraceBuffer(options: TraceBufferOptions) {
  const open = new Map<string, OpenTrace>();
  const closed = new Map<string, { parts: TraceParts; closedAtMs: number }>();
  const evicted = new Set<string>();
  const entryGraceMs = options.entryGraceMs ?? Math.max(options.graceMs, 10_000);
  const completeGraceMs = options.completeGraceMs ?? Math.min(options.graceMs, 200);
  const byLastSeen = new Map<string, OpenTrace>();
  const heaps = new Map<number, ReturnType<typeof createOffsetHeap>>();
  let lastFullScanMs = 0;

  function add(envelope: SpanEnvelope, partition: number, offset: bigint, nowMs: number): void {
    refuseAnotherProject(envelope);
    let t = open.get(envelope.trace_id);
    if (!t) {
      t = { traceId: envelope.trace_id, spans: new Map(), logs: new Map(), firstOffsets: new Map(), firstSeenMs: nowMs, lastSeenMs: nowMs, rootSeen: false, missingParents: new Set(), entrySeen: false, emitting: false };
      const before = closed.get(envelope.trace_id);
      if (before) {
        // A late span: the trace is assembled again, whole, and its unit replaced.
        for (const s of before.parts.spans) t.spans.set(s.span_id, s);
        for (const s of before.parts.spans) if (s.parent_span_id && !t.spans.has(s.parent_span_id)) t.missingParents.add(s.parent_span_id);
        for (const l of before.parts.logs) t.logs.set(logKey(l), l);
        t.rootSeen = before.parts.spans.some((s) => !s.parent_span_id);
        t.entrySeen = before.parts.spans.some(isEntrySpan);
        closed.delete(envelope.trace_id);
      } else if (evicted.has(envelope.trace_id)) {
        // Its unit was published and its spans are gone: this span must not replace that unit.
        const first = envelope.kind === 'span' ? envelope.span_id : `log${envelope.sequence}`;
        t.unitId = `${envelope.trace_id}-late-${first}`;
        t.rootSeen = true;
      }
      open.set(envelope.trace_id, t);
    }
    if (envelope.kind === 'span') {
      t.spans.set(envelope.span_id, envelope);
      t.missingParents.delete(envelope.span_id);
      if (envelope.parent_span_id && !t.spans.has(envelope.parent_span_id)) t.missingParents.add(envelope.parent_span_id);
      if (!envelope.parent_span_id) t.rootSeen = true;
      else if (isEntrySpan(envelope)) t.entrySeen = true;
    } else {
      t.logs.set(logKey(envelope), envelope);
    }
    t.lastSeenMs = nowMs;
    // Re-inserted on every record, so `byLastSeen` runs from the quietest trace to the busiest.
    byLastSeen.delete(t.traceId);
    byLastSeen.set(t.traceId, t);
    const first = t.firstOffsets.get(partition);
    if (first === undefined || offset < first) {
      t.firstOffsets.set(partition, offset);
      let heap = heaps.get(partition);
      if (!heap) heaps.set(partition, (heap = createOffsetHeap()));
      heap.push(offset, t.traceId);
    }
  }

  /**
   * A trace belongs to the project whose key sent its first record: a record of another project
   * with its trace id never joins it (that would change the owner's unit). It is refused here while
   * the trace is remembered, and by the store (which refuses another project's unit with an
   * existing id) after. Thrown as permanent: the record goes to the dead-letter topic with the reason.
   */
  function refuseAnotherProject(envelope: SpanEnvelope): void {
    const before = open.get(envelope.trace_id) ?? closed.get(envelope.trace_id)?.parts;
    if (!before) return;
    const first: SpanEnvelope | undefined = before.spans.values().next().value ?? before.logs.values().next().value;
    if (!first) return;
    const owner = first.project ?? 'default';
    const project = envelope.project ?? 'default';
    if (owner !== project) {
      throw new PermanentError(`trace ${envelope.trace_id} belongs to project "${owner}"; a record sent with a key of project "${project}" is refused`);
    }
  }

  function parts(t: OpenTrace): TraceParts {
    return { traceId: t.traceId, spans: [...t.spans.values()], logs: [...t.logs.values()], ...(t.unitId ? { unitId: t.unitId } : {}) };
  }

  function readiness(t: OpenTrace, nowMs: number, force: boolean): ReadyTrace['reason'] | null {
    const quietMs = nowMs - t.lastSeenMs;
    if (t.rootSeen && force) return 'shutdown';
    if (t.rootSeen && quietMs >= (t.missingParents.size === 0 ? completeGraceMs : options.graceMs)) return 'root-ended';
    if (t.entrySeen && !force && quietMs >= entryGraceMs) return 'root-ended';
    if (nowMs - t.firstSeenMs >= options.maxOpenMs) return 'max-open';
    return null;
  }

  /**
   * Traces ready to become units. They stay counted in the low-water mark until `confirm`. Only
   * the quiet end of `byLastSeen` is looked at on most calls (a trace that got a record within the
   * shortest grace cannot be ready); everything is looked at once a second, for max-open.
   */
  function takeReady(nowMs: number, force = false): ReadyTrace[] {
    const ready: ReadyTrace[] = [];
    const full = force || nowMs - lastFullScanMs >= 1_000;
    if (full) lastFullScanMs = nowMs;
    const shortest = Math.min(completeGraceMs, options.graceMs, entryGraceMs);
    for (const t of byLastSeen.values()) {
      if (!full && nowMs - t.lastSeenMs < shortest) break;
      if (t.emitting) continue;
      const reason = readiness(t, nowMs, force);
      if (!reason) continue;
      t.emitting = true;
      ready.push({ ...parts(t), reason });
    }
    return ready;
  }

  /** The unit of this trace is durably published. */
  function confirm(traceId: string, nowMs: number): void {
    const t = open.get(traceId);
    if (!t) return;
    open.delete(traceId);
    byLastSeen.delete(traceId);
    if (t.unitId) return; // a fragment is not re-opened; a later span makes another one
    closed.set(traceId, { parts: parts(t), closedAtMs: nowMs });
    evicted.delete(traceId);
    const maxClosed = options.maxClosedTraces ?? 10_000;
    const maxEvicted = options.maxEvictedIds ?? 200_000;
    for (const [id, c] of closed) {
      if (nowMs - c.closedAtMs < options.retainClosedMs && closed.size <= maxClosed) break;
      closed.delete(id);
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
    if (t) t.emitting = false;
  }

  /** Lowest offset in `partition` still needed by an open trace, or null when none is. */
  function lowWaterMark(partition: number): bigint | null {
    const heap = heaps.get(partition);
    if (!heap) return null;
    return heap.min((offset, traceId) => open.get(traceId)?.firstOffsets.get(partition) === offset);
  }

  return {
    add,
    takeReady,
    confirm,
    release,
    lowWaterMark,
    openCount: () => open.size,
    closedCount: () => closed.size,
  };
}

export type TraceBuffer = ReturnType<typeof createTraceBuffer>;
