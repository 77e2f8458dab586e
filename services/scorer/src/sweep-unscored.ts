import type { Producer } from '../../../shared/adapters/bus/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';

/** Units the sweep reads from the store at once (a sliding window). */
const SWEEP_CONCURRENCY = 16;

/**
 * Puts stored units that have no score (a crash between the two writes, or units from before the
 * bus kept its records) back on the units topic, a page at a time, until none is left or `signal`
 * aborts; the scorer then scores them like any other unit. Needs a store with `unscoredUnitIds`.
 */
export async function sweepUnscored(options: { store: Store; producer: Producer; unitsTopic: string; signal: AbortSignal; log: Logger }): Promise<void> {
  const { store } = options;
  if (!store.unscoredUnitIds) return;
  let after = '';
  let swept = 0;
  while (!options.signal.aborted) {
    const ids = await store.unscoredUnitIds(after, 500);
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    const found: Array<Unit | null> = [];
    await forEachLimited(ids, SWEEP_CONCURRENCY, async (id, i) => {
      found[i] = await store.getUnit(id);
    });
    const units = found.filter((unit): unit is Unit => unit !== null);
    await options.producer.send(options.unitsTopic, units.map((unit) => ({ key: unit.unit_id, value: JSON.stringify(unit), headers: { source: 'unscored-sweep' } })));
    swept += units.length;
  }
  if (swept > 0) options.log.warn({ units: swept }, 'sent stored units that had no scores (left by a crash) to be scored again');
}
