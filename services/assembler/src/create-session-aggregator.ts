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
  /** The session unit stored before (a trace re-opening a session this process no longer remembers). */
  loadSession?: (unitId: string, project: string | undefined) => Promise<Unit | null>;
  onLag?: (lag: ConsumerLag) => void;
  nowMs?: () => number;
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
      parse: async (value): Promise<SessionRecord> => {
        const unit = parseUnit(value);
        const conversationId = unit.conversation_id!;
        if (window.isKnown(sessionKey(unit.project, conversationId)) || !deps.loadSession) return { unit, previous: null };
        const stored = await deps.loadSession(sessionUnitId(unit.project, conversationId), unit.project);
        return { unit, previous: stored?.kind === 'session' ? stored : null };
      },
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
