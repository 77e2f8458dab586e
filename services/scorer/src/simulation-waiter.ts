import { sleepUnlessAborted } from '../../../shared/adapters/bus/index.ts';
import { getSimulation } from '../../../shared/engines/monitors/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import type { SimulationDialog } from './score-unit.ts';

/**
 * The simulation's own dialog for a unit: read from the store (posted to the API, or sent as a
 * simulation-record trace), polled until it arrives or `waitMs` passed —
 * then the answer says it never came. Aborted by `signal` (shutdown) with the same answer.
 */
export function createSimulationWaiter(options: { store: QueryStore; waitMs: number; pollMs?: number; now: () => number; signal: AbortSignal }) {
  const pollMs = options.pollMs ?? 250;
  return async (unit: Unit): Promise<SimulationDialog> => {
    const id = unit.simulation_id!;
    const project = unit.project ?? 'default';
    const deadline = options.now() + options.waitMs;
    for (;;) {
      const doc = await getSimulation(options.store, project, id);
      if (doc) return { messages: doc.messages };
      const left = deadline - options.now();
      if (left <= 0 || !(await sleepUnlessAborted(Math.min(pollMs, left), options.signal))) {
        return { error: `the dialog of simulation "${id}" never arrived within ${options.waitMs} ms (POST /api/v1/simulations/${id}, or spans with tracecheck.simulation.record = true)` };
      }
    }
  };
}
