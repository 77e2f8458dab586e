import type { Unit } from '../../../shared/schemas/index.ts';
import { createOffsetHeap } from './offset-heap.ts';
import { packRecord, unpackRecord, type PackedRecord } from './packed-record.ts';

interface OpenSession {
  key: string;
  conversationId: string;
  project: string | undefined;
  /** Packed (see packed-record.ts): a session stays open for `idleMs` (15 minutes by default), so many are. */
  traces: Map<string, PackedRecord>;
  /** The session unit published before, when a later trace re-opened it. */
  previous: PackedRecord | null;
  firstOffsets: Map<number, bigint>;
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
export function createSessionBuffer(options: { idleMs: number; maxClosed?: number }) {
  const open = new Map<string, OpenSession>();
  const closed = new Map<string, PackedRecord>();
  const maxClosed = options.maxClosed ?? 10_000;
  /** Per partition: the low-water mark without a scan of every open session (one per conversation of the last 15 minutes). */
  const heaps = new Map<number, ReturnType<typeof createOffsetHeap>>();

  function isOpen(key: string): boolean {
    return open.has(key);
  }

  function closedSession(key: string): Unit | null {
    const packed = closed.get(key);
    return packed === undefined ? null : unpackRecord<Unit>(packed);
  }

  /** `previous`: the stored session when neither open nor remembered (after a restart). */
  function add(unit: Unit, partition: number, offset: bigint, nowMs: number, previous: Unit | null = null): void {
    const conversationId = unit.conversation_id!;
    const key = sessionKey(unit.project, conversationId);
    let s = open.get(key);
    if (!s) {
      s = { key, conversationId, project: unit.project, traces: new Map(), previous: closed.get(key) ?? (previous ? packRecord(previous) : null), firstOffsets: new Map(), lastSeenMs: nowMs, ended: false, emitting: false };
      closed.delete(key);
      open.set(key, s);
    }
    s.traces.set(unit.unit_id, packRecord(unit));
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
      s.emitting = true;
      const previous = s.previous === null ? null : unpackRecord<Unit>(s.previous);
      ready.push({ key: s.key, conversationId: s.conversationId, previous, traces: [...s.traces.values()].map((u) => unpackRecord<Unit>(u)), reason });
    }
    return ready;
  }

  /** The session unit is durably published: forget the traces, remember the unit. */
  function confirm(key: string, published: Unit): void {
    const s = open.get(key);
    if (!s) return;
    open.delete(key);
    closed.set(key, packRecord(published));
    for (const k of closed.keys()) {
      if (closed.size <= maxClosed) break;
      closed.delete(k);
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

  return { add, isOpen, closedSession, takeReady, confirm, release, lowWaterMark, openCount: () => open.size };
}
