import type { Bus, BusMessage } from '../../../shared/bus/index.ts';
import { PermanentError, errorMessage } from '../../../shared/errors/index.ts';
import { createComponent, type Component } from '../../../shared/lifecycle/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import { UnitSchema, type Unit } from '../../../shared/schemas/index.ts';
import type { Store } from '../../../shared/store/index.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

export interface ScorerOptions extends ScoreUnitDeps {
  bus: Bus;
  store: Store;
  unitsTopic: string;
  scoresTopic: string;
  groupId: string;
  log: Logger;
}

export function parseUnit(message: BusMessage): Unit {
  let json: unknown;
  try {
    json = JSON.parse(message.value);
  } catch (err) {
    throw new PermanentError(`record is not JSON: ${errorMessage(err)}`, { cause: err });
  }
  const parsed = UnitSchema.safeParse(json);
  if (!parsed.success) throw new PermanentError(`record is not a unit v1: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * Consumes units, stores each, runs the configured checks and stores and publishes the scores.
 * A unit's offset is committed only after its scores are stored and published; store or bus
 * failures are retriable and retried by the consumer, so a unit ends scored or error-scored.
 */
export function createScorer(options: ScorerOptions): Component {
  const log = options.log.child({ component: 'scorer' });
  const producer = options.bus.createProducer();

  async function handle(message: BusMessage): Promise<void> {
    const unit = parseUnit(message);
    await options.store.writeUnits([unit]);
    const scores = await scoreUnit(unit, options);
    await options.store.writeScores(scores);
    await producer.send(
      options.scoresTopic,
      scores.map((s) => ({ key: s.unit_id, value: JSON.stringify(s) })),
    );
    log.debug({ unitId: unit.unit_id, scores: scores.map((s) => [s.check, s.status, s.value]) }, 'unit scored');
  }

  const consumer = options.bus.createConsumer({ topic: options.unitsTopic, groupId: options.groupId, handle });

  return createComponent('scorer', {
    start: async () => {
      await options.bus.ensureTopics([options.unitsTopic, options.scoresTopic]);
      await producer.start();
      await consumer.start();
      log.info({ unitsTopic: options.unitsTopic, checks: options.checks.map((c) => c.name), judge: options.judge ? 'configured' : 'none' }, 'scorer started');
    },
    stop: async () => {
      await consumer.shutdown();
      await producer.shutdown();
    },
  });
}
