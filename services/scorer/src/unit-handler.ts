import { createGroupCommit } from '../../../shared/runtime/batching/index.ts';
import type { Producer } from '../../../shared/adapters/bus/index.ts';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import { putSimulation } from '../../../shared/engines/monitors/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import type { Store, UnitWriteResult } from '../../../shared/adapters/store/index.ts';
import type { EvaluationExporter } from './evaluation-export/exporter.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

interface StoreWrite {
  unit: Unit;
  scores: Score[];
  result?: UnitWriteResult;
}

export interface UnitHandlerDeps {
  store: Store;
  producer: Producer;
  scoresTopic: string;
  /** Units per store write, at most. */
  maxBatchUnits: number;
  score: ScoreUnitDeps;
  metrics?: Metrics;
  /** Sends every score written out as an evaluation record too; never awaited. */
  exporter?: Pick<EvaluationExporter, 'add'>;
  log: Logger;
}

/**
 * One unit's work: store it with its scores, then publish the scores. A unit and its scores are
 * written together, in batches shared by the units scored at the same time (one store round trip
 * per batch, not two per unit), so a unit is never stored without its scores; scores are then
 * published, batched the same way. The store decides which revision each unit is (a changed unit
 * is a new one, a replay the same); the answer comes back on the item, and a unit another project
 * owns comes back refused. Throws as the stage kit expects: retriable for outages, permanent for a
 * unit that can never be stored.
 */
export function createUnitHandler(deps: UnitHandlerDeps) {
  const { store, score, log } = deps;
  const storeWrites = createGroupCommit<StoreWrite>(
    async (items) => {
      const results = await store.writeScoredUnits(items);
      items.forEach((item, i) => (item.result = results[i]));
    },
    { maxItems: deps.maxBatchUnits, isolateFailures: true },
  );
  const publishes = createGroupCommit<{ key: string; value: string }>((records) => deps.producer.send(deps.scoresTopic, records), { maxItems: 10_000, isolateFailures: true });

  async function stored(item: StoreWrite): Promise<{ revision: number }> {
    await storeWrites.write([item]);
    const result = item.result;
    if (!result) throw new Error('the store answered no result for a unit');
    // Permanent: the unit is set aside with the reason, never written over the owner's unit.
    if ('refused' in result) throw new PermanentError(result.refused);
    return result;
  }

  async function handle(unit: Unit): Promise<void> {
    // A simulation's own record is kept where the units that wait for it look.
    if (unit.simulation_record && unit.simulation_id) await putSimulation(store, unit.project ?? 'default', unit.simulation_id, unit.message_history, score.nowMs());
    // A unit of a simulation may wait for the simulation's own record before it is scored: it is
    // stored first, so that it can be seen (and its record posted) while it waits.
    if (unit.simulation_id) await stored({ unit, scores: [] });
    const scored = await scoreUnit(unit, score);
    const result = await stored({ unit, scores: scored });
    const scores = scored.map((s) => ({ ...s, unit_revision: result.revision }));
    if (deps.metrics) {
      for (const s of scores) deps.metrics.scoresWritten.inc({ check: s.check, status: s.status });
      deps.metrics.unitsScored.inc();
      deps.metrics.scoringLagSeconds.set(Math.max(0, (score.nowMs() - unit.end_time_ms) / 1000));
    }
    await publishes.write(scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })));
    deps.exporter?.add(unit, scores);
    log.debug({ unitId: unit.unit_id, scores: scores.map((s) => [s.check, s.status, s.value]) }, 'unit scored');
  }

  return {
    handle,
    /** Resolves once every batched write and publish has settled. */
    idle: async (): Promise<void> => {
      await storeWrites.idle();
      await publishes.idle();
    },
  };
}
