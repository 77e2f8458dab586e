import type { Bus, ConsumerLag } from '../../../shared/adapters/bus/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { parseUnit, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createWindowStage, done, type WindowStage } from '../../../shared/kit/stage/index.ts';
import { assembleSession, sessionUnitId } from './assemble-session.ts';
import { createHeldRecords } from './held-records.ts';
import { createSessionWindow, sessionKey, type SessionRecord } from './session-window.ts';
import { createSpillStore, type SpillStoreOptions } from './spill-store.ts';

export interface SessionAggregatorConfig {
  /** Trace units re-keyed by conversation (see createSessionRouter), so one instance sees a whole conversation. */
  sessionsTopic: string;
  /** Session units are published here. */
  unitsTopic: string;
  groupId: string;
  /** A session is published once no trace came for this long (or at once after its end marker). */
  idleMs: number;
  /** A session open this long is published even while traces keep coming (see createSessionWindow). Default 4 × idleMs, at least 10 min. */
  maxOpenMs?: number;
  tickMs?: number;
  /** Open sessions' trace units are spilled to disk here (see spill-store.ts). Unset: held in memory (tests). */
  spill?: SpillStoreOptions;
}

export interface SessionAggregatorDeps {
  bus: Bus;
  log: Logger;
  /**
   * The session units stored before, by id, of one project (traces re-opening sessions this process
   * no longer remembers): asked once for the records read together (Store.getUnits).
   */
  loadSessions?: (unitIds: readonly string[], project: string) => Promise<ReadonlyMap<string, Unit>>;
  onLag?: (lag: ConsumerLag) => void;
  nowMs?: () => number;
}

/**
 * The session unit stored before, for each record whose session the window does not know (neither
 * open nor recently published): one lookup per project for the whole batch, instead of one per
 * record waiting behind the store's other work. Asked just before the window takes the batch in.
 */
function withStoredSessions(isKnown: (key: string) => boolean, loadSessions: NonNullable<SessionAggregatorDeps['loadSessions']>) {
  return async (records: readonly SessionRecord[]): Promise<SessionRecord[]> => {
    const wanted = new Map<string, Set<string>>();
    for (const { unit } of records) {
      if (isKnown(sessionKey(unit.project, unit.conversation_id!))) continue;
      const project = unit.project ?? 'default';
      const ids = wanted.get(project) ?? new Set<string>();
      ids.add(sessionUnitId(unit.project, unit.conversation_id!));
      wanted.set(project, ids);
    }
    if (wanted.size === 0) return [...records];
    const stored = new Map<string, ReadonlyMap<string, Unit>>();
    for (const [project, ids] of wanted) stored.set(project, await loadSessions([...ids], project));
    return records.map(({ unit, previous }) => {
      const found = stored.get(unit.project ?? 'default')?.get(sessionUnitId(unit.project, unit.conversation_id!));
      return { unit, previous: found?.kind === 'session' ? found : previous };
    });
  };
}

/**
 * Holds trace units per conversation until it is idle for `idleMs` or a trace carried
 * `tracecheck.session.end`, then publishes one session unit: a window stage (shared/kit/stage), so a
 * crash re-reads every trace of every session not yet published; a session published before a
 * restart is re-opened from the store (`loadSession`). Session units are idempotent by id
 * downstream: a re-opened session replaces its unit and scores.
 */
export function createSessionAggregator(config: SessionAggregatorConfig, deps: SessionAggregatorDeps): WindowStage {
  const spill = config.spill ? createSpillStore(config.spill) : null;
  const window = createSessionWindow({ idleMs: config.idleMs, ...(config.maxOpenMs === undefined ? {} : { maxOpenMs: config.maxOpenMs }), ...(spill ? { records: createHeldRecords(spill) } : {}) });
  const log = deps.log.child({ component: 'sessions' });
  return createWindowStage(
    {
      name: 'sessions',
      in: config.sessionsTopic,
      out: config.unitsTopic,
      groupId: config.groupId,
      tickMs: config.tickMs ?? Math.min(1_000, Math.max(50, Math.floor(config.idleMs / 4))),
      // Open sessions are not forced out: their traces are uncommitted and read again on restart.
      flushOnStop: false,
    },
    {
      bus: deps.bus,
      log: deps.log,
      window,
      parse: (value): SessionRecord => ({ unit: parseUnit(value), previous: null }),
      ...(deps.loadSessions ? { resolve: withStoredSessions((key) => window.isKnown(key), deps.loadSessions) } : {}),
      build: (session, nowMs) => done(assembleSession(session.previous, session.traces, session.conversationId, nowMs)),
      toMessage: (unit) => ({ key: unit.unit_id, value: JSON.stringify(unit) }),
      outputKind: 'session unit',
      records: (session) => session.traces.map((unit) => ({ value: JSON.stringify(unit) })),
      published: (unit, reason) => log.debug({ unitId: unit.unit_id, reason, traces: unit.trace_ids.length }, 'session published'),
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
      ...(spill ? { close: () => spill.close() } : {}),
      ...(deps.nowMs ? { nowMs: deps.nowMs } : {}),
    },
  );
}
