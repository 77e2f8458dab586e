import { DEFAULT_MAX_SPANS_PER_TRACE } from '../../../shared/runtime/config/index.ts';
import { EVALUATION_EVENT, type LogRecordEnvelope, type SpanEnvelope, type SpanRecord, type Unit } from '../../../shared/contracts/schemas/index.ts';
import type { RecordPosition, TakenGroup, Window } from '../../../shared/kit/stage/index.ts';
import type { TraceParts } from './assemble-trace.ts';
import { createClosedTraces, type ClosedTrace, type ClosedTracesOptions } from './closed-traces.ts';
import { createClosingPolicy, type ClosingOptions } from './closing-policy.ts';
import { createHeldRecords, type HeldRecords } from './held-records.ts';
import { createOpenCaps, type OpenCapsOptions } from './open-caps.ts';
import { createTraceContents, droppedOf, isResendOf, logKey, newOpenTrace, spanIdsOf, type OpenTrace } from './open-trace.ts';
import { createMemoryByteStore } from './spill-store.ts';
import { unpackInSteps } from './trace-parts.ts';

export interface TraceWindowOptions extends ClosingOptions, ClosedTracesOptions, OpenCapsOptions {
  /**
   * Spans kept per trace (the first to arrive, plus the root whenever it comes); later ones are
   * counted and left out, and the unit is flagged truncated. Log records: ten times as many.
   * Default DEFAULT_MAX_SPANS_PER_TRACE.
   */
  maxSpansPerTrace?: number;
  /** Where records are held while open or retained: spilled to disk in the services. Default: in memory. */
  records?: HeldRecords;
}

export type TraceWindow = Window<SpanEnvelope, TraceParts, Unit> & {
  closedCount(): number;
  /** The collector refused an export with spans of these traces: their root-less ones close soon (refusedGraceMs). */
  refused(project: string | undefined, traceIds: Iterable<string>, nowMs: number): void;
  /** Packed bytes held by open traces, and how many of them have no root yet, in all or of one project (see open-caps.ts). */
  openBytes(project?: string): number;
  rootlessCount(project?: string): number;
  /** Open traces of one project. */
  projectOpenCount(project: string): number;
  /** Where a record of a trace's parts was read; undefined for one kept from before a re-open. */
  positionOf(record: object): RecordPosition | undefined;
};

/**
 * Open and closed traces are held per project and trace id: a trace id another project sent
 * first is that project's trace, not this one's (it used to be refused and set aside, answered
 * 200 to the exporter). The two become two units.
 */
/** Refused trace ids remembered until their spans are read (see `refused`). */
const MAX_REFUSALS = 100_000;

function traceKey(project: string, traceId: string): string {
  // The default project's key is the trace id itself (the key before projects had their own).
  return project === 'default' ? traceId : `${project}\u0000${traceId}`;
}

/**
 * Open traces, keyed by project and trace id: the trace assembler's Window (shared/kit/stage). What
 * goes into a trace is open-trace.ts, when it is ready closing-policy.ts, what is kept of it once
 * published closed-traces.ts; a late span re-opens a published trace whole, and its unit is replaced.
 */
export function createTraceWindow(options: TraceWindowOptions): TraceWindow {
  const open = new Map<string, OpenTrace>();
  /** Re-inserted on every record, so it runs from the quietest trace to the busiest. */
  const byLastSeen = new Map<string, OpenTrace>();
  const maxSpans = options.maxSpansPerTrace ?? DEFAULT_MAX_SPANS_PER_TRACE;
  const records = options.records ?? createHeldRecords(createMemoryByteStore());
  const contents = createTraceContents(records, maxSpans);
  const policy = createClosingPolicy(options, contents.isFull);
  /** Projects holding an open or retained trace of each trace id: a second project's unit id names its project. */
  const holders = new Map<string, Set<string>>();
  const forget = (traceId: string, project: string): void => {
    const set = holders.get(traceId);
    set?.delete(project);
    if (set?.size === 0) holders.delete(traceId);
  };
  const closed = createClosedTraces(records, options, (c) => forget(c.traceId, c.project));
  const caps = createOpenCaps(options);
  /** Where the records a re-opened trace took back from its closed self were read, until the kit asks (carriedInto). */
  const carried = new Map<string, RecordPosition[]>();
  /** Records handed out in a trace's parts, to where they were read (weak: as long as the caller holds them). */
  const positions = new WeakMap<object, RecordPosition>();
  let lastFullScanMs = 0;
  /** Traces the collector refused spans of, by key, to when: those not read yet are marked when they are. */
  const refusals = new Map<string, number>();

  function addTo(t: OpenTrace, envelope: SpanEnvelope, at: RecordPosition): void {
    if (envelope.kind === 'span') contents.addSpan(t, envelope, at);
    else contents.addLog(t, envelope, at);
  }

  /**
   * A trace id another project holds (open or retained) makes this project's unit
   * `<trace id>@<project>`: never merged into the other's unit, and never under its id, which the
   * store would refuse. A re-opened trace keeps the unit id it had.
   */
  function projectUnitIdOf(traceId: string, project: string, before: ClosedTrace | undefined): string | undefined {
    if (before) return before.projectUnitId;
    const others = holders.get(traceId);
    return others && !(others.size === 1 && others.has(project)) ? `${traceId}@${encodeURIComponent(project)}` : undefined;
  }

  function holdTraceId(traceId: string, project: string): void {
    let projects = holders.get(traceId);
    if (!projects) holders.set(traceId, (projects = new Set()));
    projects.add(project);
  }

  /**
   * A closed trace's records back into `created` as they are held (none is held again); returns
   * where they were read. Reading them back can fail (RetriableError) before anything changed.
   */
  function takeBack(created: OpenTrace, before: ClosedTrace): RecordPosition[] {
    const from: RecordPosition[] = [];
    for (const id of before.spans) {
      const { record, at: readAt } = records.read<SpanRecord>(id);
      contents.addSpan(created, record, readAt, id);
      if (readAt) from.push(readAt);
    }
    for (const id of before.logs) {
      const { record, at: readAt } = records.read<LogRecordEnvelope>(id);
      (created.logs ??= new Map()).set(logKey(record), id);
      if (readAt) from.push(readAt);
    }
    created.droppedSpans = before.dropped?.spans ?? 0;
    created.droppedLogs = before.dropped?.logs ?? 0;
    created.bytes = before.bytes;
    return from;
  }

  /** What is kept of a published trace (see closed-traces.ts). */
  function closedOf(t: OpenTrace, nowMs: number): ClosedTrace {
    const dropped = droppedOf(t, maxSpans);
    return { traceId: t.traceId, project: t.project, ...(t.projectUnitId ? { projectUnitId: t.projectUnitId } : {}), spans: spanIdsOf(t), logs: [...(t.logs?.values() ?? [])], ...(dropped ? { dropped } : {}), closedAtMs: nowMs, bytes: t.bytes };
  }

  function openTrace(key: string, project: string, envelope: SpanEnvelope, at: RecordPosition, nowMs: number, before: ClosedTrace | undefined): OpenTrace {
    const created = newOpenTrace(key, envelope.trace_id, project, nowMs);
    const projectUnitId = projectUnitIdOf(envelope.trace_id, project, before);
    if (projectUnitId) created.projectUnitId = projectUnitId;
    if (before) {
      // A late span: the trace is assembled again, whole, and its unit replaced.
      carried.set(key, takeBack(created, before));
    } else if (closed.wasEvicted(key)) {
      // Its unit was published and its spans are gone: this span must not replace that unit.
      const first = envelope.kind === 'span' ? envelope.span_id : `log${envelope.sequence}`;
      created.unitId = `${created.projectUnitId ?? envelope.trace_id}-late-${first}`;
      created.rootSeen = true;
    }
    // Held before the trace is: a record that cannot be held leaves the closed trace as it was.
    addTo(created, envelope, at);
    if (before) closed.reopened(key);
    open.set(key, created);
    holdTraceId(created.traceId, project);
    caps.opened(created);
    return created;
  }

  function add(envelope: SpanEnvelope, at: RecordPosition, nowMs: number): string | null {
    // An evaluation of the trace is a score, not part of the run (the scorer's evaluation intake
    // reads it): one that comes after the unit must not re-open it.
    if (envelope.kind === 'log' && envelope.event_name === EVALUATION_EVENT) return null;
    const project = envelope.project ?? 'default';
    const key = traceKey(project, envelope.trace_id);
    let t = open.get(key);
    if (!t) {
      const before = closed.get(key);
      // An exporter's retry of a span already published changes nothing: re-opening the trace would
      // only publish the same unit again, and let the commit pass the trace's first records while it
      // is open (a crash then would replay the re-sent span alone, a fragment in place of the unit).
      if (before && envelope.kind === 'span' && isResendOf(records, before.spans, envelope)) return null;
      t = openTrace(key, project, envelope, at, nowMs, before);
    } else {
      const [bytesBefore, rootBefore] = [t.bytes, t.rootSeen];
      addTo(t, envelope, at);
      caps.grew(t, bytesBefore, rootBefore);
    }
    t.lastSeenMs = nowMs;
    const refusedAt = refusals.get(key);
    if (refusedAt !== undefined && !t.rootSeen) t.refusedAtMs = Math.max(t.refusedAtMs ?? 0, refusedAt);
    byLastSeen.delete(key);
    byLastSeen.set(key, t);
    return key;
  }

  /**
   * The collector refused an export holding spans of these traces (none of it reached the bus): a
   * root-less trace among them closes `refusedGraceMs` after, not `maxOpenMs`. Remembered for the
   * traces whose earlier spans are not read yet (at most MAX_REFUSALS, the oldest forgotten first).
   */
  function refused(project: string | undefined, traceIds: Iterable<string>, nowMs: number): void {
    for (const traceId of traceIds) {
      const key = traceKey(project ?? 'default', traceId);
      refusals.delete(key);
      refusals.set(key, nowMs);
      const t = open.get(key);
      if (t && !t.rootSeen) t.refusedAtMs = nowMs;
    }
    for (const key of refusals.keys()) {
      if (refusals.size <= MAX_REFUSALS) break;
      refusals.delete(key);
    }
  }

  /**
   * Traces ready to become units, each with the steps that unpack its records (those held now: a
   * record that comes later re-opens it). Only the quiet end of `byLastSeen` is looked at on most
   * calls (a trace that got a record within the shortest grace cannot be ready); everything is
   * looked at once a second, for max-open. Past a cap on open traces, the oldest close too, as they are.
   */
  function takeReady(nowMs: number, force: boolean): Array<TakenGroup<TraceParts>> {
    const taken: OpenTrace[] = [];
    const groups: Array<TakenGroup<TraceParts>> = [];
    const take = (t: OpenTrace, reason: string): void => {
      t.emitting = true;
      const dropped = droppedOf(t, maxSpans);
      const head = { traceId: t.traceId, ...(t.unitId ? { unitId: t.unitId } : {}), ...(t.projectUnitId ? { projectUnitId: t.projectUnitId } : {}), ...(dropped ? { dropped } : {}) };
      taken.push(t);
      groups.push({ key: t.key, reason, load: unpackInSteps(records, positions, head, spanIdsOf(t), [...(t.logs?.values() ?? [])]) });
    };
    const full = force || nowMs - lastFullScanMs >= 1_000;
    if (full) lastFullScanMs = nowMs;
    for (const t of byLastSeen.values()) {
      if (!full && nowMs - t.lastSeenMs < policy.shortestGraceMs) break;
      if (t.emitting) continue;
      const reason = policy.readiness(t, nowMs, force);
      if (reason) take(t, reason);
    }
    if (!force) for (const { trace, reason } of caps.overCaps(open, taken)) take(trace, reason);
    return groups;
  }

  /** The unit of this trace is durably published (or its records set aside): it is kept a while as closed. */
  function confirm(key: string, nowMs: number): void {
    const t = open.get(key);
    if (!t) return;
    open.delete(key);
    byLastSeen.delete(key);
    caps.closed(t);
    contents.dropStale(t);
    if (t.unitId) {
      // A fragment is not re-opened; a later span makes another one.
      forget(t.traceId, t.project);
      closed.dropAll(spanIdsOf(t));
      closed.dropAll(t.logs?.values() ?? []);
      return;
    }
    closed.add(key, closedOf(t, nowMs), nowMs);
  }

  /**
   * Traces published before a restart, from the span records the bus replays (Window.restore):
   * each is kept as confirm would have kept it, so that a late span re-opens it whole. A trace open
   * or closed here already is left as it is; one restored by an earlier call (the bus replays in
   * chunks) takes these records too. A trace whose first records lie beyond the replay's bounds is
   * kept with what there is. Nothing is published. A record that cannot be held (disk full) throws
   * a RetriableError; what was restored until then stays.
   */
  function restore(envelopes: readonly SpanEnvelope[], at: readonly RecordPosition[], nowMs: number): void {
    const rebuilt = new Map<string, OpenTrace>();
    try {
      for (const [i, envelope] of envelopes.entries()) {
        const project = envelope.project ?? 'default';
        const key = traceKey(project, envelope.trace_id);
        let t = rebuilt.get(key);
        if (!t) {
          const before = closed.get(key);
          if (open.has(key) || (before && !before.restored)) continue;
          t = newOpenTrace(key, envelope.trace_id, project, nowMs);
          if (before) {
            if (before.projectUnitId) t.projectUnitId = before.projectUnitId;
            takeBack(t, before);
            closed.reopened(key);
          } else {
            const projectUnitId = projectUnitIdOf(envelope.trace_id, project, undefined);
            if (projectUnitId) t.projectUnitId = projectUnitId;
            holdTraceId(t.traceId, project);
          }
          rebuilt.set(key, t);
        }
        addTo(t, envelope, at[i]);
      }
    } finally {
      for (const [key, t] of rebuilt) closed.add(key, { ...closedOf(t, nowMs), restored: true }, nowMs);
    }
  }

  /** Publishing failed, or a record came meanwhile: the trace goes back to waiting and is offered again. */
  function release(key: string): void {
    const t = open.get(key);
    if (!t) return;
    t.emitting = false;
    contents.dropStale(t);
  }

  return {
    add,
    restore,
    takeReady,
    refused,
    confirm,
    release,
    openCount: () => open.size,
    closedCount: () => closed.size(),
    openBytes: caps.openBytes,
    rootlessCount: caps.rootlessCount,
    projectOpenCount: caps.openCount,
    positionOf: (record) => positions.get(record),
    carriedInto(key) {
      const from = carried.get(key) ?? [];
      carried.delete(key);
      return from;
    },
  };
}
