import type { Unit } from '../../../shared/schemas/index.ts';
import { createHeldRecords, type HeldRecords } from './held-records.ts';
import { createOffsetHeap } from './offset-heap.ts';
import { SmallMap } from './small-map.ts';
import { createMemoryByteStore } from './spill-store.ts';

interface OpenSession {
  key: string;
  conversationId: string;
  project: string | undefined;
  /** Held outside the heap (see held-records.ts): a session stays open for `idleMs` (15 minutes by default), so many are. */
  traces: SmallMap<string, number>;
  /** The session unit published before, when a later trace re-opened it. */
  previous: number | null;
  firstOffsets: SmallMap<number, bigint>;
  lastSeenMs: number;
  ended: boolean;
  emitting: boolean;
}

export interface ReadySession {
  key: string;
  conversationId: string;
  previous: Unit | null;
  traces: Unit[];
  reason: 'idle' | 'end-marker';
}

export function sessionKey(project: string | undefined, conversationId: string): string {
  return `${project ?? 'default'}\u0000${conversationId}`;
}

/**
 * Open sessions in memory, keyed by project and conversation id, holding their trace units; a
 * session is ready after `idleMs` without a new trace, or at once when a trace carried the end
 * marker. Published sessions are remembered (the last `maxClosed`) so that a later trace re-opens
 * one whole. Like the trace buffer, it reports per partition the lowest offset still needed.
 */
export function createSessionBuffer(options: {
  idleMs: number;
  maxClosed?: number;
  /** Where trace and session units are held: spilled to disk in the services. Default: in memory. */
  records?: HeldRecords;
  /** A session whose units could not be read back (it stays open and is offered again). */
  onReadError?: (err: unknown, key: string) => void;
}) {
  const open = new Map<string, OpenSession>();
  const closed = new Map<string, number>();
  const records = options.records ?? createHeldRecords(createMemoryByteStore());
  const maxClosed = options.maxClosed ?? 10_000;
  /** Per partition: the low-water mark without a scan of every open session (one per conversation of the last 15 minutes). */
  const heaps = new Map<number, ReturnType<typeof createOffsetHeap>>();

  function isOpen(key: string): boolean {
    return open.has(key);
  }

  function isKnown(key: string): boolean {
    return open.has(key) || closed.has(key);
  }

  /**
   * `previous`: the stored session when neither open nor remembered (after a restart). Throws a
   * RetriableError, with nothing changed, when the unit could not be held (disk full).
   */
  function add(unit: Unit, partition: number, offset: bigint, nowMs: number, previous: Unit | null = null): void {
    const conversationId = unit.conversation_id!;
    const key = sessionKey(unit.project, conversationId);
    const id = records.hold(unit);
    let s = open.get(key);
    if (!s) {
      let before = closed.get(key) ?? null;
      try {
        if (before === null && previous) before = records.hold(previous);
      } catch (err) {
        records.drop(id);
        throw err;
      }
      s = { key, conversationId, project: unit.project, traces: new SmallMap(), previous: before, firstOffsets: new SmallMap(), lastSeenMs: nowMs, ended: false, emitting: false };
      closed.delete(key);
      open.set(key, s);
    }
    // takeReady reads the units at once: the one replaced can go now.
    const replaced = s.traces.get(unit.unit_id);
    if (replaced !== undefined) records.drop(replaced);
    s.traces.set(unit.unit_id, id);
    s.lastSeenMs = nowMs;
    if (unit.session_end) s.ended = true;
    const first = s.firstOffsets.get(partition);
    if (first === undefined || offset < first) {
      s.firstOffsets.set(partition, offset);
      let heap = heaps.get(partition);
      if (!heap) heaps.set(partition, (heap = createOffsetHeap()));
      heap.push(offset, key);
    }
  }

  function takeReady(nowMs: number): ReadySession[] {
    const ready: ReadySession[] = [];
    for (const s of open.values()) {
      if (s.emitting) continue;
      const reason = s.ended ? 'end-marker' : nowMs - s.lastSeenMs >= options.idleMs ? 'idle' : null;
      if (!reason) continue;
      let previous: Unit | null;
      let traces: Unit[];
      try {
        previous = s.previous === null ? null : records.read<Unit>(s.previous).record;
        traces = [...s.traces.values()].map((id) => records.read<Unit>(id).record);
      } catch (err) {
        options.onReadError?.(err, s.key);
        continue;
      }
      s.emitting = true;
      ready.push({ key: s.key, conversationId: s.conversationId, previous, traces, reason });
    }
    return ready;
  }

  /** The session unit is durably published: forget the traces, remember the unit. */
  function confirm(key: string, published: Unit): void {
    const s = open.get(key);
    if (!s) return;
    open.delete(key);
    for (const id of s.traces.values()) records.drop(id);
    if (s.previous !== null) records.drop(s.previous);
    try {
      closed.set(key, records.hold(published));
    } catch {
      // Not remembered (disk full): a later trace re-opens the session from the store (loadSession).
    }
    for (const [k, id] of closed) {
      if (closed.size <= maxClosed) break;
      closed.delete(k);
      records.drop(id);
    }
  }

  function release(key: string): void {
    const s = open.get(key);
    if (s) s.emitting = false;
  }

  function lowWaterMark(partition: number): bigint | null {
    const heap = heaps.get(partition);
    return heap ? heap.min((offset, key) => open.get(key)?.firstOffsets.get(partition) === offset) : null;
  }

  return { add, isOpen, isKnown, takeReady, confirm, release, lowWaterMark, openCount: () => open.size };
}
