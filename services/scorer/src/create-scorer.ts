import { DEFAULT_BACKOFF, backoffDelayMs, sleepUnlessAborted, type BackoffPolicy, type Bus, type BusMessage } from '../../../shared/bus/index.ts';
import type { Metrics } from '../../../shared/metrics/index.ts';
import { errorMessage, isRetriable } from '../../../shared/errors/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { UnitSchema, parseRecord, type Unit } from '../../../shared/schemas/index.ts';
import type { Store } from '../../../shared/store/index.ts';
import { createInFlightWindow } from './in-flight-window.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

export interface ScorerOptions extends ScoreUnitDeps {
  bus: Bus;
  store: Store;
  unitsTopic: string;
  scoresTopic: string;
  groupId: string;
  log: Logger;
  /** Units scored at once (judge calls of different units overlap). Default 8. */
  maxConcurrentUnits?: number;
  /** Counts scores written by check and status, and how far scoring trails the agents. */
  metrics?: Metrics;
  /** Backoff while the store or the bus is unavailable. */
  retryBackoff?: BackoffPolicy;
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
  const window = createInFlightWindow(options.maxConcurrentUnits ?? 8);
  const stopping = new AbortController();
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;

  async function storeAndPublish(unit: Unit): Promise<void> {
    await options.store.writeUnits([unit]);
    const scores = await scoreUnit(unit, options);
    await options.store.writeScores(scores);
    if (options.metrics) {
      for (const s of scores) options.metrics.scoresWritten.inc({ check: s.check, status: s.status });
      options.metrics.scoringLagSeconds.set(Math.max(0, (options.nowMs() - unit.end_time_ms) / 1000));
    }
    await producer.send(
      options.scoresTopic,
      scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })),
    );
    log.debug({ unitId: unit.unit_id, scores: scores.map((s) => [s.check, s.status, s.value]) }, 'unit scored');
  }

  async function scoreWithRetry(unit: Unit, message: BusMessage): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await storeAndPublish(unit);
        return;
      } catch (err) {
        if (!isRetriable(err)) {
          log.error({ err, unitId: unit.unit_id }, 'unit could not be stored; sent to the dead-letter topic');
          await producer
            .send(`${options.unitsTopic}.dlq`, [{ key: message.key, value: message.value, headers: { error: errorMessage(err).slice(0, 1000), 'original-partition': String(message.partition), 'original-offset': message.offset } }])
            .catch((dlqErr: unknown) => log.error({ err: dlqErr, unitId: unit.unit_id }, 'dead-letter publish failed'));
          return;
        }
        log.warn({ err, unitId: unit.unit_id, attempt }, 'storing or publishing scores failed; retrying');
        // Stopping: the unit stays uncommitted and is read again after the restart.
        if (!(await sleepUnlessAborted(backoffDelayMs(attempt, backoff), stopping.signal))) return;
      }
    }
  }

  const consumer = options.bus.createConsumer({
    topic: options.unitsTopic,
    groupId: options.groupId,
    handle: async (message) => {
      const unit = parseUnit(message);
      await window.room();
      const offset = BigInt(message.offset);
      window.add(message.partition, offset);
      void scoreWithRetry(unit, message).finally(() => window.remove(message.partition, offset));
    },
    committableOffset: (partition, lastHandled) => window.committable(partition, lastHandled),
  });

  return {
    ...createComponent('scorer', {
      start: async () => {
        await options.bus.ensureTopics([options.unitsTopic, options.scoresTopic]);
        await producer.start();
        await consumer.start();
        log.info({ unitsTopic: options.unitsTopic, checks: options.checks.map((c) => c.name), judge: options.judge ? 'configured' : 'none' }, 'scorer started');
      },
      stop: async () => {
        await consumer.shutdown();
        stopping.abort();
        await window.drained();
        await producer.shutdown();
      },
    }),
    unitsInFlight: () => window.size(),
  };
}
