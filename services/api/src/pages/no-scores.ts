import type { Unit } from '../../../../shared/contracts/schemas/index.ts';
import type { CheckRegistry } from '../../../../shared/engines/checks/index.ts';
import { describeNoChecks, planUnit } from '../../../../shared/engines/monitors/index.ts';
import type { PlanSource } from '../scoring-plan-source.ts';
import { h, type Html } from './html.ts';

// A unit without scores says why, from facts: the scorer's own plan decision for it, the checks
// that exist, and the scorer's backlog when this process knows it. It never promises scores that
// will not come.

export async function noScoresNote(plans: PlanSource | undefined, registry: CheckRegistry | null, unit: Unit, project: string): Promise<Html> {
  if (!plans) return h`<p class="muted" data-no-scores="unknown">No scores.</p>`;
  const decided = planUnit(await plans.load(project), unit);
  if (decided.reason) return h`<p class="muted" data-no-scores="${decided.reason.kind}">${describeNoChecks(decided.reason)} <a href="/checks#plan">The scoring plan</a>.</p>`;
  const names = decided.checks.map((c) => c.name);
  const missing = registry ? names.filter((n) => !registry.get(n)) : [];
  if (missing.length === names.length) {
    return h`<p class="muted" data-no-scores="unknown_checks">The plan names only checks this project does not have (${missing.join(', ')}), so nothing will score this unit. <a href="/checks#plan">The scoring plan</a>.</p>`;
  }
  const runs = names.filter((n) => !missing.includes(n)).join(', ');
  const waiting = plans.unitsWaiting();
  if (waiting !== null && waiting > 0) return h`<p class="muted" data-no-scores="pending">Scoring pending: ${waiting} units waiting for the scorer. The plan runs ${runs} on this unit.</p>`;
  if (waiting === 0) {
    return h`<p class="muted" data-no-scores="not_scored">The plan runs ${runs} on this unit today, and the scorer has no backlog, so no score is on its way: most likely the plan changed after this unit was scored. <code>tracecheck backfill --check NAME</code> scores it now.</p>`;
  }
  return h`<p class="muted" data-no-scores="pending_unknown">The plan runs ${runs} on this unit; no score is written yet. This process does not run the scorer, so its backlog is not known here (see <code>tracecheck_consumer_lag_records</code> in its metrics).</p>`;
}
