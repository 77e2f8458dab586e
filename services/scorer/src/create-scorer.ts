import { DEFAULT_BACKOFF, backoffDelayMs, deadLetterRecord, deadLetterTopic, sleepUnlessAborted, type BackoffPolicy, type Bus, type BusMessage, type ConsumerLag } from '../../../shared/bus/index.ts';
import { PermanentError, isRetriable } from '../../../shared/errors/index.ts';
import type { Metrics } from '../../../shared/metrics/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { createGroupCommit } from '../../../shared/batching/index.ts';
import { UnitSchema, parseRecord, type Score, type Unit } from '../../../shared/schemas/index.ts';
import type { Store, UnitWriteResult } from '../../../shared/store/index.ts';
import { createInFlightWindow } from './in-flight-window.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

export interface ScorerOptions extends ScoreUnitDeps {
  bus: Bus;
  store: Store;
  unitsTopic: string;
  scoresTopic: string;
  groupId: string;
  log: Logger;
  /** Units scored at once (judge calls of different units overlap; store writes are batched across them). Default 256. */
  maxConcurrentUnits?: number;
  /** Units per store write, at most. Default 500. */
  maxBatchUnits?: number;
  /** Counts scores written by check and status, and how far scoring trails the agents. */
  metrics?: Metrics;
  /** Backoff while the store or the bus is unavailable. */
  retryBackoff?: BackoffPolicy;
  /** Keeps a simulation's own record (a unit with `simulation_record`) where units that wait for it look. */
  storeSimulationRecord?: (unit: Unit) => Promise<void>;
  /** Receives the units consumer's lag (see ConsumerOptions.onLag). */
  onLag?: (lag: ConsumerLag) => void;
  /**
   * At start, score every stored unit that has no score (a crash between the two writes, or units
   * from before the bus kept its records): needs a store with `unscoredUnitIds` (the embedded one).
   */
  sweepUnscored?: boolean;
}

/** Units the start-up sweep scores at once. */
const SWEEP_CONCURRENCY = 16;

interface StoreWrite {
  unit: Unit;
  scores: Score[];
  result?: UnitWriteResult;
}

export function parseUnit(message: BusMessage): Unit {
  return parseRecord(UnitSchema, message.value, 'a unit v1');
}

/**
 * Consumes units, stores each, runs the configured checks and stores and publishes the scores.
 * Several units are scored at once; offsets are committed only below the oldest unit not yet
 * stored and published, so a crash re-reads every unit not finished (at least once; score writes
 * are idempotent). Store or bus outages are retried with backoff, never skipped, so a unit ends
 * scored or error-scored.
 */
export function createScorer(options: ScorerOptions): Component & { unitsInFlight(): number } {
  const log = options.log.child({ component: 'scorer' });
  const producer = options.bus.createProducer();
  const window = createInFlightWindow(options.maxConcurrentUnits ?? 256);
  const stopping = new AbortController();
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;

  // A unit and its scores are written together, in batches shared by the units scored at the same
  // time (one store round trip per batch, not two per unit), so a unit is never stored without
  // its scores; scores are then published, batched the same way.
  // The store decides which revision each unit is (a changed unit is a new one, a replay the same);
  // the answer comes back on the item, and a unit another project owns comes back refused.
  const storeWrites = createGroupCommit<StoreWrite>(
    async (items) => {
      const results = await options.store.writeScoredUnits(items);
      items.forEach((item, i) => (item.result = results[i]));
    },
    { maxItems: options.maxBatchUnits ?? 500, isolateFailures: true },
  );
  const publishes = createGroupCommit<{ key: string; value: string }>((records) => producer.send(options.scoresTopic, records), { maxItems: 10_000, isolateFailures: true });

  async function stored(item: StoreWrite): Promise<{ revision: number }> {
    await storeWrites.write([item]);
    const result = item.result;
    if (!result) throw new Error('the store answered no result for a unit');
    // Permanent: the unit goes to the dead-letter topic with the reason, never over the owner's unit.
    if ('refused' in result) throw new PermanentError(result.refused);
    return result;
  }

  async function storeAndPublish(unit: Unit): Promise<void> {
    if (unit.simulation_record && options.storeSimulationRecord) await options.storeSimulationRecord(unit);
    // A unit of a simulation may wait for the simulation's own record before it is scored: it is
    // stored first, so that it can be seen (and its record posted) while it waits.
    if (unit.simulation_id) await stored({ unit, scores: [] });
    const scored = await scoreUnit(unit, options);
    const result = await stored({ unit, scores: scored });
    const scores = scored.map((s) => ({ ...s, unit_revision: result.revision }));
    if (options.metrics) {
      for (const s of scores) options.metrics.scoresWritten.inc({ check: s.check, status: s.status });
      options.metrics.scoringLagSeconds.set(Math.max(0, (options.nowMs() - unit.end_time_ms) / 1000));
    }
    await publishes.write(scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })));
    log.debug({ unitId: unit.unit_id, scores: scores.map((s) => [s.check, s.status, s.value]) }, 'unit scored');
  }

  /**
   * Until the unit is stored and published, or dead-lettered: a retriable failure (store or bus
   * down) is retried with backoff, a permanent one sends the unit to `<units topic>.dlq` in the
   * bus's one dead-letter format, and that send is itself retried until it lands. Only then does the
   * unit leave the in-flight window, so its offset is never committed while it is neither scored
   * nor dead-lettered. On stop it stays uncommitted and is read again after the restart.
   */
  async function scoreWithRetry(unit: Unit, message: BusMessage): Promise<'done' | 'stopped'> {
    for (let attempt = 0; ; attempt++) {
      try {
        await storeAndPublish(unit);
        return 'done';
      } catch (err) {
        if (!isRetriable(err)) {
          log.error({ err, unitId: unit.unit_id }, 'unit could not be stored; sending it to the dead-letter topic');
          return deadLetter(unit, message, err);
        }
        log.warn({ err, unitId: unit.unit_id, attempt }, 'storing or publishing scores failed; retrying');
        if (!(await sleepUnlessAborted(backoffDelayMs(attempt, backoff), stopping.signal))) return 'stopped';
      }
    }
  }

  async function deadLetter(unit: Unit, message: BusMessage, cause: unknown): Promise<'done' | 'stopped'> {
    for (let attempt = 0; ; attempt++) {
      try {
        await producer.send(deadLetterTopic(options.unitsTopic), [deadLetterRecord(message, cause)]);
        return 'done';
      } catch (err) {
        log.warn({ err, unitId: unit.unit_id, attempt }, 'dead-letter send failed; retrying (the unit stays uncommitted)');
        if (!(await sleepUnlessAborted(backoffDelayMs(attempt, backoff), stopping.signal))) return 'stopped';
      }
    }
  }

  // Two versions of one unit in flight at once (a late span re-opened its trace while the first was
  // still being judged) are stored in the order they were published, so the later is the later
  // revision; different units still run side by side.
  const unitChains = new Map<string, Promise<unknown>>();
  function inUnitOrder<T>(unit: Unit, fn: () => Promise<T>): Promise<T> {
    const key = `${unit.project ?? 'default'}\u0000${unit.unit_id}`;
    const run = (unitChains.get(key) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => undefined);
    unitChains.set(key, settled);
    void settled.then(() => {
      if (unitChains.get(key) === settled) unitChains.delete(key);
    });
    return run;
  }

  /** Scores stored units that have none, a page at a time, until none is left or the scorer stops. */
  async function sweepUnscored(): Promise<void> {
    const store = options.store;
    if (!store.unscoredUnitIds) return;
    let after = '';
    let swept = 0;
    while (!stopping.signal.aborted) {
      const ids = await store.unscoredUnitIds(after, 500);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      for (let i = 0; i < ids.length && !stopping.signal.aborted; i += SWEEP_CONCURRENCY) {
        await Promise.all(
          ids.slice(i, i + SWEEP_CONCURRENCY).map(async (id) => {
            const unit = await store.getUnit(id);
            if (!unit) return;
            const message: BusMessage = { topic: options.unitsTopic, partition: -1, offset: '-1', key: id, value: JSON.stringify(unit), headers: { source: 'unscored-sweep' }, timestampMs: options.nowMs() };
            if ((await inUnitOrder(unit, () => scoreWithRetry(unit, message))) === 'done') swept += 1;
          }),
        );
      }
    }
    if (swept > 0) log.warn({ units: swept }, 'scored stored units that had no scores (left by a crash)');
  }
  let sweep: Promise<void> = Promise.resolve();

  const consumer = options.bus.createConsumer({
    topic: options.unitsTopic,
    groupId: options.groupId,
    handle: async (message) => {
      const unit = parseUnit(message);
      await window.room();
      const offset = BigInt(message.offset);
      window.add(message.partition, offset);
      void inUnitOrder(unit, () => scoreWithRetry(unit, message)).then((outcome) => {
        // Stopped: the consumer is already shut down, so nothing commits past this unit.
        if (outcome === 'done') window.remove(message.partition, offset);
        else window.abandon(message.partition, offset);
      });
    },
    committableOffset: (partition, lastHandled) => window.committable(partition, lastHandled),
    ...(options.onLag ? { onLag: options.onLag } : {}),
  });

  return {
    ...createComponent('scorer', {
      start: async () => {
        await options.bus.ensureTopics([options.unitsTopic, options.scoresTopic]);
        await producer.start();
        await consumer.start();
        if (options.sweepUnscored) {
          sweep = sweepUnscored().catch((err: unknown) => log.error({ err }, 'the sweep for unscored units failed; they are scored at the next start'));
        }
        log.info({ unitsTopic: options.unitsTopic, checks: options.selectChecks ? 'by monitor' : options.checks.map((c) => c.name), judge: options.judge ? 'configured' : 'none' }, 'scorer started');
      },
      stop: async () => {
        await consumer.shutdown();
        stopping.abort();
        await sweep;
        await window.drained();
        await storeWrites.idle();
        await publishes.idle();
        await producer.shutdown();
      },
    }),
    unitsInFlight: () => window.size(),
  };
}
