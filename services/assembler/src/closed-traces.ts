import type { TraceParts } from './assemble-trace.ts';
import type { HeldRecords } from './held-records.ts';

/** A published trace kept for a while, so that a late span re-opens it whole. */
export interface ClosedTrace {
  traceId: string;
  project: string;
  projectUnitId?: string;
  spans: number[];
  logs: number[];
  dropped?: TraceParts['dropped'];
  closedAtMs: number;
  /** Packed bytes of its records: they count again if it re-opens (see open-caps.ts). */
  bytes: number;
  /** Kept from the bus's replay after a restart (TraceWindow restore): more replayed records of it join it. */
  restored?: true;
}

export interface ClosedTracesOptions {
  /** How long a closed trace is kept so that a late span re-opens it whole. */
  retainClosedMs: number;
  /** At most this many closed traces are kept (oldest dropped first). Default 10,000. */
  maxClosedTraces?: number;
  /** Ids of dropped closed traces remembered, so a very late span is not taken for a whole trace. Default 200,000. */
  maxEvictedIds?: number;
}

/**
 * Published traces, kept with their records for `retainClosedMs` (and at most `maxClosedTraces`),
 * then forgotten but for their id (at most `maxEvictedIds`): a span of an evicted trace makes a
 * fragment unit of its own instead of replacing the whole unit with itself.
 */
export function createClosedTraces(records: HeldRecords, options: ClosedTracesOptions, onEvicted: (trace: ClosedTrace) => void) {
  const closed = new Map<string, ClosedTrace>();
  const evicted = new Set<string>();
  const maxClosed = options.maxClosedTraces ?? 10_000;
  const maxEvicted = options.maxEvictedIds ?? 200_000;

  function dropAll(ids: Iterable<number>): void {
    for (const id of ids) records.drop(id);
  }

  return {
    get: (key: string): ClosedTrace | undefined => closed.get(key),
    /** The trace re-opened: its records moved to the open trace. */
    reopened: (key: string): void => void closed.delete(key),
    wasEvicted: (key: string): boolean => evicted.has(key),
    add(key: string, trace: ClosedTrace, nowMs: number): void {
      closed.set(key, trace);
      evicted.delete(key);
      for (const [id, c] of closed) {
        if (nowMs - c.closedAtMs < options.retainClosedMs && closed.size <= maxClosed) break;
        closed.delete(id);
        dropAll(c.spans);
        dropAll(c.logs);
        evicted.add(id);
        onEvicted(c);
      }
      for (const id of evicted) {
        if (evicted.size <= maxEvicted) break;
        evicted.delete(id);
      }
    },
    dropAll,
    size: (): number => closed.size,
  };
}
