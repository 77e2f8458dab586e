import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { done, failing, type TakenGroup, type Window } from '../../../shared/kit/stage/index.ts';
import { createHeldRecords, type HeldRecords } from './held-records.ts';
import { SmallMap } from './small-map.ts';
import { createMemoryByteStore } from './spill-store.ts';

interface OpenSession {
  key: string;
  conversationId: string;
  /** Held outside the heap (see held-records.ts): a session stays open for `idleMs` (15 minutes by default), so many are. */
  traces: SmallMap<string, number>;
  /** The session unit published before, when a later trace re-opened it. */
  previous: number | null;
  lastSeenMs: number;
  /** When its first trace (since it was last published) came. */
  openedMs: number;
  ended: boolean;
  emitting: boolean;
}

/** A trace unit routed to its session, with the session unit stored before when the window knows none (after a restart). */
export interface SessionRecord {
  unit: Unit;
  previous: Unit | null;
}

/** A session ready to become one unit (see assembleSession). */
export interface ReadySession {
  conversationId: string;
  previous: Unit | null;
  traces: Unit[];
}

/** 1 h at the default 15 min idle time; never under 10 min, so a short idle time (tests) does not split a conversation sent at once. */
const defaultMaxOpenMs = (idleMs: number): number => Math.max(4 * idleMs, 10 * 60_000);

export function sessionKey(project: string | undefined, conversationId: string): string {
  return `${project ?? 'default'}\u0000${conversationId}`;
}

/**
 * Open sessions, keyed by project and conversation id, holding their trace units; a session is
 * ready after `idleMs` without a new trace, at once when a trace carried the end marker, or once
 * it has been open `maxOpenMs` (default 4 × idleMs, at least 10 min) however busy: the sessions topic is committed
 * only below an open session's first record, so a conversation that never paused would otherwise
 * hold the topic's log (and the bus's segments) for ever. Published so, it re-opens at its next
 * trace, whole, as after an idle pause (a new revision of the same session unit).
 * Published sessions are remembered (the last `maxClosed`) so that a later trace re-opens one
 * whole. A Window of the stage kit (shared/kit/stage): pure of the bus.
 */
export function createSessionWindow(options: {
  idleMs: number;
  maxOpenMs?: number;
  maxClosed?: number;
  /** Where trace and session units are held: spilled to disk in the services. Default: in memory. */
  records?: HeldRecords;
}): Window<SessionRecord, ReadySession, Unit> & { isKnown(key: string): boolean } {
  const open = new Map<string, OpenSession>();
  const closed = new Map<string, number>();
  const records = options.records ?? createHeldRecords(createMemoryByteStore());
  const maxClosed = options.maxClosed ?? 10_000;
  const maxOpenMs = options.maxOpenMs ?? defaultMaxOpenMs(options.idleMs);

  /** Throws a RetriableError, with nothing changed, when the unit could not be held (disk full). */
  function add({ unit, previous }: SessionRecord, _at: unknown, nowMs: number): string {
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
      s = { key, conversationId, traces: new SmallMap(), previous: before, lastSeenMs: nowMs, openedMs: nowMs, ended: false, emitting: false };
      closed.delete(key);
      open.set(key, s);
    }
    // takeReady reads the units at once: the one replaced can go now.
    const replaced = s.traces.get(unit.unit_id);
    if (replaced !== undefined) records.drop(replaced);
    s.traces.set(unit.unit_id, id);
    s.lastSeenMs = nowMs;
    if (unit.session_end) s.ended = true;
    return key;
  }

  /** Units are read back here, not when loaded: a unit replaced meanwhile is dropped at once (see add). */
  function takeReady(nowMs: number): Array<TakenGroup<ReadySession>> {
    const ready: Array<TakenGroup<ReadySession>> = [];
    for (const s of open.values()) {
      if (s.emitting) continue;
      const reason = s.ended ? 'end-marker' : nowMs - s.lastSeenMs >= options.idleMs ? 'idle' : nowMs - s.openedMs >= maxOpenMs ? 'max-open' : null;
      if (!reason) continue;
      s.emitting = true;
      let load: Iterator<void, ReadySession>;
      try {
        const previous = s.previous === null ? null : records.read<Unit>(s.previous).record;
        const traces = [...s.traces.values()].map((id) => records.read<Unit>(id).record);
        load = done({ conversationId: s.conversationId, previous, traces });
      } catch (err) {
        // Released by the kit, and offered again.
        load = failing(err);
      }
      ready.push({ key: s.key, reason, load });
    }
    return ready;
  }

  /** The session unit is durably published: forget the traces, remember the unit (none: it was set aside). */
  function confirm(key: string, _nowMs: number, published?: Unit): void {
    const s = open.get(key);
    if (!s) return;
    open.delete(key);
    for (const id of s.traces.values()) records.drop(id);
    if (s.previous !== null) records.drop(s.previous);
    if (!published) return;
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

  return { add, takeReady, confirm, release, openCount: () => open.size, isKnown: (key) => open.has(key) || closed.has(key) };
}
