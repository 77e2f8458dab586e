import type { Bus, ConsumerLag } from '../../../shared/bus/index.ts';
import { DEFAULT_SCORER_CONCURRENCY } from '../../../shared/config/index.ts';
import { PermanentError } from '../../../shared/errors/index.ts';
import type { Metrics } from '../../../shared/metrics/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { createGroupCommit } from '../../../shared/batching/index.ts';
import { createKeyedSerialQueue, forEachLimited, type Turn } from '../../../shared/flow/index.ts';
import { parseUnit, type Score, type Unit } from '../../../shared/schemas/index.ts';
import type { Store, UnitWriteResult } from '../../../shared/store/index.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

export interface ScorerOptions extends ScoreUnitDeps {
  bus: Bus;
  store: Store;
  unitsTopic: string;
  scoresTopic: string;
  groupId: string;
  log: Logger;
  /** Units scored at once (judge calls of different units overlap; store writes are batched across them). Default 1,024 (a slow store then holds bigger batches, not a full window that stops the consumer). */
  maxConcurrentUnits?: number;
  /** Units per store write, at most. Default 500. */
  maxBatchUnits?: number;
  /** Counts scores written by check and status, and how far scoring trails the agents. */
  metrics?: Metrics;
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

/** Units the start-up sweep reads from the store at once. */
const SWEEP_CONCURRENCY = 16;

interface StoreWrite {
  unit: Unit;
  scores: Score[];
  result?: UnitWriteResult;
}

/**
 * Consumes units, stores each, runs the configured checks and stores and publishes the scores.
 * Several units are scored at once: each unit's scoring is DeferredWork that the bus owns, so the
 * bus retries store or bus outages with backoff, dead-letters a unit that fails for good, and
 * commits only below the oldest unit neither finished nor dead-lettered (a crash re-reads every
 * unit not finished: at least once; score writes are idempotent).
 */
export function createScorer(options: ScorerOptions): Component {
  const log = options.log.child({ component: 'scorer' });
  const producer = options.bus.createProducer();
  const stopping = new AbortController();

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

  // Two versions of one unit in flight at once (a late span re-opened its trace while the first was
  // still being judged) are stored in the order they were published, so the later is the later
  // revision; different units still run side by side. A version's turn ends when the bus is done
  // with it (scored, dead-lettered, or left for a restart), retries included.
  const unitTurns = createKeyedSerialQueue();
  const inUnitOrder = (unit: Unit): Turn => unitTurns.turn(`${unit.project ?? 'default'}\u0000${unit.unit_id}`);

  /**
   * Puts stored units that have no score back on the units topic, a page at a time, until none is
   * left or the scorer stops; the consumer then scores them like any other unit.
   */
  async function sweepUnscored(): Promise<void> {
    const store = options.store;
    if (!store.unscoredUnitIds) return;
    let after = '';
    let swept = 0;
    while (!stopping.signal.aborted) {
      const ids = await store.unscoredUnitIds(after, 500);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      const found: Array<Unit | null> = [];
      await forEachLimited(ids, SWEEP_CONCURRENCY, async (id, i) => {
        found[i] = await store.getUnit(id);
      });
      const units = found.filter((unit): unit is Unit => unit !== null);
      await producer.send(options.unitsTopic, units.map((unit) => ({ key: unit.unit_id, value: JSON.stringify(unit), headers: { source: 'unscored-sweep' } })));
      swept += units.length;
    }
    if (swept > 0) log.warn({ units: swept }, 'sent stored units that had no scores (left by a crash) to be scored again');
  }
  let sweep: Promise<void> = Promise.resolve();

  const consumer = options.bus.createConsumer({
    topic: options.unitsTopic,
    groupId: options.groupId,
    maxInFlight: options.maxConcurrentUnits ?? DEFAULT_SCORER_CONCURRENCY,
    handle: (message) => {
      try {
        const unit = parseUnit(message.value);
        const turn = inUnitOrder(unit);
        return Promise.resolve({
          run: async () => {
            await turn.ready;
            await storeAndPublish(unit);
          },
          settled: turn.release,
        });
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
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
        stopping.abort();
        await sweep;
        // Waits for the units in hand; the bus commits below the oldest one left unfinished.
        await consumer.shutdown();
        await storeWrites.idle();
        await publishes.idle();
        await producer.shutdown();
      },
    }),
  };
}
