import type { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { AlertRuleInputSchema, AlertRuleSchema, NotifyTargetSchema, PROBLEM_ALERT_KINDS, type AlertLimits } from '../../../shared/engines/alerts/index.ts';
import { mainCheck } from '../../../shared/engines/problems/index.ts';
import { DatasetNameSchema, ReviewQueueInputSchema, ReviewQueueSchema } from '../../../shared/engines/review/index.ts';
import type { OutboundPolicy } from '../../../shared/runtime/http/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { createAlertRule } from './alert-routes.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import type { CheckNames } from './check-names.ts';
import { snapshotDataset } from './dataset-routes.ts';
import { problemDetail, type ProblemView } from './problem-views.ts';
import { createQueue } from './review-routes.ts';
import { addRoute, type Answer, type ApiEnv } from './route.ts';

// From a problem to a fix (issue 37): one action each, made with the same code as the queue,
// dataset and alert-rule routes, over the problem's units (its sample, merged problems' included).

export interface ProblemActionDeps {
  store: Store;
  log: Logger;
  now: () => number;
  checkNames: CheckNames;
  alertTargets: OutboundPolicy;
  limits: AlertLimits;
}

const IdParams = z.object({ id: z.string().min(1).max(64) });
const DatasetSummarySchema = z.object({ name: z.string(), version: z.number().int(), units: z.number().int(), created_at_ms: z.number(), source: z.string() });
const notFound = (id: string): Answer => ({ status: 404, body: { error: `no problem ${id} in this project` } });

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function problemActionRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: ProblemActionDeps): void {
  const tag = 'problems';
  const find = async (project: string, id: string): Promise<ProblemView | null> => (await problemDetail(deps.store, project, id, deps.now()))?.problem ?? null;

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/queue',
      tag,
      role: 'admin',
      summary: "Creates a review queue over the problem's units (its sample), reviewed against the check that failed most often with it.",
      pathParams: IdParams,
      body: z.object({ name: z.string().min(1).max(200).optional().describe('default: "Problem: " and its title') }).strict(),
      responses: {
        201: { description: 'the stored queue', schema: ReviewQueueSchema },
        400: { description: 'no check failed with the problem (nothing to review against)', schema: ErrorSchema },
        404: { description: 'no such problem', schema: ErrorSchema },
        409: { description: 'a queue of that name exists', schema: ErrorSchema },
      },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      const p = await find(project, params.id);
      if (!p) return notFound(params.id);
      const check = mainCheck(p);
      if (check === null) return { status: 400, body: { error: `no check failed with problem ${p.id} (${p.cause}): a review queue reviews a check's verdicts; make a dataset of its units instead` } };
      // Units by id only: no unit ends before the epoch, so the filter adds none of the check's other failures.
      const input = ReviewQueueInputSchema.parse({ name: body.name ?? clip(`Problem: ${p.title}`, 200), filter: { check, to_ms: 0 }, unit_ids: p.sample });
      return createQueue(deps, project, input);
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/dataset',
      tag,
      role: 'admin',
      summary: "Snapshots the problem's units (its sample, with their reviews) as a new version of a dataset, exportable to an llmeval suite (`tracecheck datasets export`).",
      pathParams: IdParams,
      body: z.object({ name: DatasetNameSchema.optional().describe('default: problem-{id}') }).strict(),
      responses: { 201: { description: 'the stored version', schema: DatasetSummarySchema }, 400: { description: 'none of its units is stored any more', schema: ErrorSchema }, 404: { description: 'no such problem', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      const p = await find(project, params.id);
      if (!p) return notFound(params.id);
      return snapshotDataset(deps, project, { name: body.name ?? `problem-${p.id}`, ids: p.sample, source: clip(`problem ${p.id}: ${p.title}`, 300), emptyBecause: `none of the ${p.sample.length} sampled units of problem ${p.id} is stored any more` });
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/alert-rule',
      tag,
      role: 'admin',
      summary: "Creates an alert rule for the problem's state changes (problem_new, problem_regressed, problem_growing), sent to the targets given.",
      pathParams: IdParams,
      body: z
        .object({
          name: z.string().min(1).max(200).optional().describe('default: "Problem: " and its title'),
          notify: z.array(NotifyTargetSchema).max(10).default([]),
          events: z.array(z.enum(PROBLEM_ALERT_KINDS)).min(1).optional().describe('default: all three'),
        })
        .strict(),
      responses: { 201: { description: 'the stored rule', schema: AlertRuleSchema }, 400: { description: 'a target it may not call, or beyond the limits', schema: ErrorSchema }, 404: { description: 'no such problem', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      const p = await find(project, params.id);
      if (!p) return notFound(params.id);
      const input = AlertRuleInputSchema.parse({ kind: 'problem', name: body.name ?? clip(`Problem: ${p.title}`, 200), problem_id: p.id, notify: body.notify, ...(body.events ? { events: body.events } : {}) });
      return createAlertRule(deps, project, input);
    },
  );
}
