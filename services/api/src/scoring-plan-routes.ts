import type { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { MonitorSchema, type ScoringPlan } from '../../../shared/engines/monitors/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { coverage, needsAttributes, sampleRecentUnits, type AgentCoverage } from './plan-coverage.ts';
import { addRoute, type ApiEnv } from './route.ts';
import type { PlanSource } from './scoring-plan-source.ts';

export const AgentCoverageSchema = z.object({
  agent: z.string().nullable(),
  unit_kind: z.enum(['trace', 'session']),
  units: z.number().int().describe('units of this agent and kind that ended in the last 7 days'),
  looked_at: z.number().int().describe('its newest units the plan was tried on (at most 20)'),
  with_checks: z.number().int().describe('of those, how many the plan gives at least one check'),
  checks: z.array(z.string()),
  reason: z.string().nullable().describe('why a tried unit gets no check; null when every one gets one'),
});

const ScoringPlanViewSchema = z.object({
  project: z.string(),
  mode: z.enum(['defaults', 'monitors']).describe('defaults while the project has no monitor; once it has one, monitors decide'),
  defaults: z.object({ trace: z.array(z.string()), session: z.array(z.string()) }).describe('TRACECHECK_CHECKS and TRACECHECK_SESSION_CHECKS: what runs in defaults mode'),
  monitors: z.array(MonitorSchema.extend({ source: z.enum(['api', 'file']) })),
  agents: z.array(AgentCoverageSchema).describe('agents seen in the last 7 days, per kind of unit, and what the plan runs on their units'),
  units_waiting: z.number().int().nullable().describe("units waiting for this process's scorer; null when not known here"),
});
export type ScoringPlanView = z.infer<typeof ScoringPlanViewSchema>;

function planView(plan: ScoringPlan, agents: AgentCoverage[], unitsWaiting: number | null): ScoringPlanView {
  return {
    project: plan.project,
    mode: plan.mode,
    defaults: { trace: [...plan.defaults.trace], session: [...plan.defaults.session] },
    monitors: plan.monitors.map((m) => ({ ...m, source: m.project === '*' ? ('file' as const) : ('api' as const) })),
    agents,
    units_waiting: unitsWaiting,
  };
}

/** The plan with what it does to the agents seen lately: the checks page and the API share it. */
export async function loadPlanView(store: Store, plans: PlanSource, project: string, nowMs: number): Promise<ScoringPlanView> {
  const plan = await plans.load(project);
  const sample = await sampleRecentUnits(store, project, nowMs, needsAttributes(plan));
  return planView(plan, coverage(plan, sample), plans.unitsWaiting());
}

/** `GET /api/v1/scoring-plan`: which checks run on which units, computed by the scorer's own decision. */
export function scoringPlanRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: Store; plans: PlanSource; now: () => number }): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/scoring-plan',
      tag: 'monitors',
      role: 'read',
      summary: "The project's effective scoring plan: the defaults or the monitors (checks, filters, sample rate, budget), and which checks it runs on the units of each agent seen in the last 7 days.",
      responses: { 200: { description: 'the plan', schema: ScoringPlanViewSchema } },
    },
    async (c) => ({ status: 200, body: await loadPlanView(deps.store, deps.plans, c.get('project'), deps.now()) }),
  );
}
