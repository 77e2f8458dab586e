import type { Unit } from '../../../shared/schemas/index.ts';

interface OpenSession {
  key: string;
  conversationId: string;
  project: string | undefined;
  traces: Map<string, Unit>;
  /** The session unit published before, when a later trace re-opened it. */
  previous: Unit | null;
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
  const closed = new Map<string, Unit>();
  const maxClosed = options.maxClosed ?? 10_000;

  function isOpen(key: string): boolean {
    return open.has(key);
  }

  function closedSession(key: string): Unit | null {
    return closed.get(key) ?? null;
  }

  /** `previous`: the stored session when neither open nor remembered (after a restart). */
  function add(unit: Unit, partition: number, offset: bigint, nowMs: number, previous: Unit | null = null): void {
    const conversationId = unit.conversation_id!;
    const key = sessionKey(unit.project, conversationId);
    let s = open.get(key);
    if (!s) {
      s = { key, conversationId, project: unit.project, traces: new Map(), previous: closed.get(key) ?? previous, firstOffsets: new Map(), lastSeenMs: nowMs, ended: false, emitting: false };
      closed.delete(key);
      open.set(key, s);
    }
    s.traces.set(unit.unit_id, unit);
    s.lastSeenMs = nowMs;
    if (unit.session_end) s.ended = true;
    const first = s.firstOffsets.get(partition);
    if (first === undefined || offset < first) s.firstOffsets.set(partition, offset);
  }

  function takeReady(nowMs: number): ReadySession[] {
    const ready: ReadySession[] = [];
    for (const s of open.values()) {
      if (s.emitting) continue;
      const reason = s.ended ? 'end-marker' : nowMs - s.lastSeenMs >= options.idleMs ? 'idle' : null;
      if (!reason) continue;
      s.emitting = true;
      ready.push({ key: s.key, conversationId: s.conversationId, previous: s.previous, traces: [...s.traces.values()], reason });
    }
    return ready;
  }

  /** The session unit is durably published: forget the traces, remember the unit. */
  function confirm(key: string, published: Unit): void {
    const s = open.get(key);
    if (!s) return;
    open.delete(key);
    closed.set(key, published);
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
    let min: bigint | null = null;
    for (const s of open.values()) {
      const o = s.firstOffsets.get(partition);
      if (o !== undefined && (min === null || o < min)) min = o;
    }
    return min;
  }

  return { add, isOpen, closedSession, takeReady, confirm, release, lowWaterMark, openCount: () => open.size };
}
