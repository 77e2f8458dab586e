import { DEFAULT_TRACE_COMPLETE_GRACE_MS, DEFAULT_TRACE_ENTRY_GRACE_MS } from '../../../shared/runtime/config/index.ts';
import type { OpenTrace } from './open-trace.ts';

export interface ClosingOptions {
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
  /**
   * A root-less trace some of whose spans the collector refused (429 or 503) closes this long after
   * the refusal and its last span: the exporter's retry (after Retry-After) has had its time to
   * bring the root. Default DEFAULT_TRACE_REFUSED_GRACE_MS.
   */
  refusedGraceMs?: number;
}

/** Three times the collector's Retry-After (5 s): an exporter that retries has sent the root again by then. */
const DEFAULT_TRACE_REFUSED_GRACE_MS = 15_000;

export type ClosingReason = 'root-ended' | 'span-limit' | 'root-refused' | 'max-open' | 'shutdown';

/**
 * A tenth of the shortest grace, 10–1000 ms (20 ms for the default 200 ms complete-trace grace): a
 * trace waits at most that long after its grace. A tick that finds nothing costs next to nothing
 * (open traces are kept in order of their last record).
 */
export function defaultTickMs(graceMs: number, completeGraceMs: number | undefined): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(graceMs, completeGraceMs ?? DEFAULT_TRACE_COMPLETE_GRACE_MS) / 10)));
}

/** When an open trace is ready to become a unit, and why. */
export function createClosingPolicy(options: ClosingOptions, isFull: (t: OpenTrace) => boolean) {
  const entryGraceMs = options.entryGraceMs ?? Math.max(options.graceMs, DEFAULT_TRACE_ENTRY_GRACE_MS);
  const completeGraceMs = options.completeGraceMs ?? Math.min(options.graceMs, DEFAULT_TRACE_COMPLETE_GRACE_MS);
  const refusedGraceMs = options.refusedGraceMs ?? DEFAULT_TRACE_REFUSED_GRACE_MS;
  return {
    /** A trace that got a record more recently than this cannot be ready (but for max-open). */
    shortestGraceMs: Math.min(completeGraceMs, options.graceMs, entryGraceMs),
    /** `force` (shutdown): every trace whose root has ended, whatever its grace. */
    readiness(t: OpenTrace, nowMs: number, force: boolean): ClosingReason | null {
      const quietMs = nowMs - t.lastSeenMs;
      if (t.rootSeen && force) return 'shutdown';
      if (t.rootSeen && quietMs >= (t.missingParents.size === 0 ? completeGraceMs : options.graceMs)) return 'root-ended';
      if (t.entrySeen && !force && quietMs >= entryGraceMs) return 'root-ended';
      // A trace at the cap gains nothing by waiting: it closes once quiet, so that its records are
      // committed (the in-process bus refuses new spans past its backlog, and a root that comes last
      // could never arrive). A later span, its root included, re-opens it like any late span.
      if (!force && isFull(t) && quietMs >= completeGraceMs) return 'span-limit';
      // Its root was in an export the collector refused: unless the exporter sent it again, it never comes.
      if (!t.rootSeen && t.refusedAtMs !== undefined && nowMs - Math.max(t.refusedAtMs, t.lastSeenMs) >= refusedGraceMs) return 'root-refused';
      if (nowMs - t.firstSeenMs >= options.maxOpenMs) return 'max-open';
      return null;
    },
  };
}
