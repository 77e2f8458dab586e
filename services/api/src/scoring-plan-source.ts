import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { listMonitors, scoringPlan, type ScoringPlan } from '../../../shared/engines/monitors/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { CheckCatalog } from './pages/page-deps.ts';
import type { LagHealth } from '../../../shared/kit/metrics/index.ts';

/** Where the API reads the plan the scorer follows, and how far behind the scorer is. */
export interface PlanSource {
  /** The project's plan now: its stored monitors, the file's, and the defaults. */
  load(project: string): Promise<ScoringPlan>;
  /** Units waiting for the scorer, when this process runs it and has measured its lag; else null. */
  unitsWaiting(): number | null;
}

/**
 * The same inputs the scorer's check selector gets (pipeline.ts builds both from one config), so
 * the plan shown is the plan run. Without a catalog the API was not told the defaults: none.
 */
export function createPlanSource(deps: { store: QueryStore; log: Logger; catalog: CheckCatalog | null }): PlanSource {
  const log = deps.log.child({ component: 'api.scoring-plan' });
  const invalid = (doc: { id: string }, problems: string): void => log.warn({ id: doc.id, problems }, 'stored monitor does not parse; skipped');
  const defaults = { trace: deps.catalog?.live ?? [], session: deps.catalog?.sessionLive ?? [] };
  return {
    load: async (project) => scoringPlan(project, await listMonitors(deps.store, invalid, project), deps.catalog?.fileMonitors ?? [], defaults),
    unitsWaiting: () => deps.catalog?.unitsWaiting?.() ?? null,
  };
}

/** The scorer's backlog on the units topic from the process's lag measurements; null before one, or while the last one failed. */
export function scorerBacklog(health: Pick<LagHealth, 'consumers'>, group: string, topic: string): number | null {
  const c = health.consumers.find((x) => x.group === group && x.topic === topic);
  return c && c.error === null ? c.total_lag : null;
}
