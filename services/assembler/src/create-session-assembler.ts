import { committableBelow, type Bus, type BusMessage, type ConsumerLag } from '../../../shared/bus/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { UnitSchema, parseRecord, parseUnit, type Unit } from '../../../shared/schemas/index.ts';
import { assembleSession, sessionUnitId } from './assemble-session.ts';
import { createHeldRecords } from './held-records.ts';
import { createSessionBuffer, sessionKey } from './session-buffer.ts';
import { createSpillStore, type SpillStoreOptions } from './spill-store.ts';

export interface SessionAssemblerOptions {
  bus: Bus;
  /** Trace units are read here, and session units published here. */
  unitsTopic: string;
  /** Trace units re-keyed by conversation, so one instance sees a whole conversation. */
  sessionsTopic: string;
  groupId: string;
  idleMs: number;
  /** The session unit stored before (a trace re-opening a session this process no longer remembers). */
  loadSession?: (unitId: string, project: string | undefined) => Promise<Unit | null>;
  tickMs?: number;
  log: Logger;
  nowMs?: () => number;
  /** Receives both consumers' lag (see ConsumerOptions.onLag). */
  onLag?: (lag: ConsumerLag) => void;
  /** Open sessions' trace units are spilled to disk here (see spill-store.ts). Unset: held in memory (tests). */
  spill?: SpillStoreOptions;
}

/**
 * What the router reads of a unit to route it. The scorer validates every unit of the units topic
 * in full, and the aggregator every one routed (the value goes on unchanged), so the router does
 * not check the dialog again (it was a tenth of the main thread's parsing): a record without these
 * fields is still refused, and dead-lettered, as not a unit.
 */
const RoutedUnitSchema = UnitSchema.pick({ schema_version: true, unit_id: true, kind: true, conversation_id: true, simulation_record: true, project: true });
const parseRouted = (message: BusMessage) => parseRecord(RoutedUnitSchema, message.value, 'a unit v1');

/**
 * Builds session units from trace units that share a conversation id, in two steps:
 * 1. route: every trace unit with a conversation id is re-published to `sessionsTopic`, keyed by
 *    project and conversation id (committed once the re-publish is acknowledged);
 * 2. aggregate: trace units are held per conversation until it is idle for `idleMs` or a trace
 *    carried `tracecheck.session.end`, then one session unit is published to `unitsTopic`.
 * Guarantee: at least once. The aggregator commits only below the oldest trace of an open session,
 * so a crash re-reads every trace of every session not yet published; a session published before
 * a restart is re-opened from the store (`loadSession`). Session units are idempotent by id
 * downstream: a re-opened session replaces its unit and scores.
 */
export function createSessionAssembler(options: SessionAssemblerOptions): Component & { openSessions(): number } {
  const log = options.log.child({ component: 'sessions' });
  const now = options.nowMs ?? Date.now;
  const spill = options.spill ? createSpillStore(options.spill) : null;
  const buffer = createSessionBuffer({
    idleMs: options.idleMs,
    ...(spill ? { records: createHeldRecords(spill) } : {}),
    onReadError: (err, key) => log.error({ err, key }, 'an open session could not be read back from the spill directory; will retry'),
  });
  const producer = options.bus.createProducer();
  const tickMs = options.tickMs ?? Math.min(1_000, Math.max(50, Math.floor(options.idleMs / 4)));

  const router = options.bus.createConsumer({
    topic: options.unitsTopic,
    groupId: `${options.groupId}-route`,
    handle: async (message) => {
      const unit = parseRouted(message);
      if (unit.kind !== 'trace' || !unit.conversation_id || unit.simulation_record) return;
      await producer.send(options.sessionsTopic, [{ key: sessionKey(unit.project, unit.conversation_id), value: message.value }]);
    },
    ...(options.onLag ? { onLag: options.onLag } : {}),
  });

  const aggregator = options.bus.createConsumer({
    topic: options.sessionsTopic,
    groupId: options.groupId,
    handle: async (message) => {
      const unit = parseUnit(message.value);
      const key = sessionKey(unit.project, unit.conversation_id!);
      let previous: Unit | null = null;
      if (!buffer.isKnown(key) && options.loadSession) {
        const stored = await options.loadSession(sessionUnitId(unit.project, unit.conversation_id!), unit.project);
        previous = stored?.kind === 'session' ? stored : null;
      }
      buffer.add(unit, message.partition, BigInt(message.offset), now(), previous);
    },
    committableOffset: (partition, lastHandled) => committableBelow(buffer.lowWaterMark(partition), lastHandled),
    ...(options.onLag ? { onLag: options.onLag } : {}),
  });

  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> = Promise.resolve();

  async function publishReady(): Promise<void> {
    for (const s of buffer.takeReady(now())) {
      const unit = assembleSession(s.previous, s.traces, s.conversationId, now());
      try {
        await producer.send(options.unitsTopic, [{ key: unit.unit_id, value: JSON.stringify(unit) }]);
        buffer.confirm(s.key, unit);
        log.debug({ unitId: unit.unit_id, reason: s.reason, traces: unit.trace_ids.length }, 'session published');
      } catch (err) {
        buffer.release(s.key);
        log.warn({ err, unitId: unit.unit_id }, 'session publish failed; will retry');
      }
    }
  }

  return {
    ...createComponent('sessions', {
      start: async () => {
        await options.bus.ensureTopics([options.unitsTopic, options.sessionsTopic]);
        await producer.start();
        await aggregator.start();
        await router.start();
        let busy = false;
        timer = setInterval(() => {
          if (busy) return; // a slow publish skips ticks rather than queueing them
          busy = true;
          ticking = publishReady().finally(() => {
            busy = false;
          });
        }, tickMs);
        log.info({ sessionsTopic: options.sessionsTopic, idleMs: options.idleMs }, 'session assembler started');
      },
      stop: async () => {
        if (timer) clearInterval(timer);
        await router.shutdown();
        await aggregator.shutdown();
        await ticking;
        // Open sessions are not forced out: their traces are uncommitted and read again on restart.
        await producer.shutdown();
        spill?.close();
      },
    }),
    openSessions: () => buffer.openCount(),
  };
}
