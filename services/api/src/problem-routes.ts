import type { Hono } from 'hono';
import { z } from 'zod';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { getProblem, listProblemActions, ProblemSchema, putProblemAction } from '../../../shared/engines/problems/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { problemDetail, problemViews } from './problem-views.ts';
import { addRoute, type ApiEnv } from './route.ts';

// GET /api/v1/problems and /api/v1/problems/{id}, and people's decisions on them (issue 37).

const ProblemViewSchema = ProblemSchema.extend({
  recent: z.number().int().describe('units with it in the last 24 hours'),
  previous: z.number().int().describe('units with it in the 24 hours before'),
  growing_versions: z.array(z.string()).describe('versions in which it is significantly more frequent than in the version before'),
  merged: z.array(z.string()).describe('problems merged into this one'),
});
const ListSchema = z.object({ problems: z.array(ProblemViewSchema), count: z.number().int() });
const VersionRateSchema = z.object({
  version: z.string().nullable(),
  units: z.number().int(),
  occurrences: z.number().int(),
  rate: z.number(),
  interval: z.tuple([z.number(), z.number()]),
  baseline: z.string().nullable(),
  p_value: z.number().nullable(),
  growing: z.boolean(),
});
const DetailSchema = z.object({ problem: ProblemViewSchema, trend: z.array(z.object({ t: z.number(), units: z.number().int() })), versions: z.array(VersionRateSchema) });
const IdParams = z.object({ id: z.string().min(1).max(64) });
const Reason = z.string().trim().min(1, 'say why (kept with the decision)').max(1_000);

export interface ProblemRouteDeps {
  store: QueryStore;
  log: Logger;
  now: () => number;
}

export function problemRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: ProblemRouteDeps): void {
  const log = deps.log.child({ component: 'api.problems' });
  const tag = 'problems';

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/problems',
      tag,
      role: 'read',
      summary: 'Problems: failed units grouped by signature, ranked by the units each cost in the last 24 hours (sort=cost) or by growth (sort=growth); dismissed ones only with include_dismissed=true.',
      query: z.object({ sort: z.enum(['cost', 'growth']).default('cost'), include_dismissed: z.enum(['true', 'false']).default('false') }).strict(),
      responses: { 200: { description: 'the problems', schema: ListSchema } },
    },
    async (c, { query }) => {
      const problems = await problemViews(deps.store, c.get('project'), deps.now(), { sort: query.sort, includeDismissed: query.include_dismissed === 'true' });
      return { status: 200, body: { problems, count: problems.length } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/problems/{id}',
      tag,
      role: 'read',
      summary: 'One problem: its trend per hour, templates, sample units, and per version of its agent its rate with a Wilson 95% interval and the always-valid test against the version before.',
      pathParams: IdParams,
      responses: { 200: { description: 'the problem', schema: DetailSchema }, 404: { description: 'no such problem in the project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const detail = await problemDetail(deps.store, c.get('project'), params.id, deps.now());
      return detail ? { status: 200, body: detail } : { status: 404, body: { error: `no problem ${params.id} in this project` } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/dismiss',
      tag,
      role: 'admin',
      summary: 'Dismisses a problem with a reason: it leaves the list (include_dismissed=true shows it) and keeps counting.',
      pathParams: IdParams,
      body: z.object({ reason: Reason }).strict(),
      responses: { 200: { description: 'the decision', schema: z.object({ id: z.string(), reason: z.string() }) }, 404: { description: 'no such problem', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      if (!(await getProblem(deps.store, project, params.id))) return { status: 404, body: { error: `no problem ${params.id} in this project` } };
      const actions = await listProblemActions(deps.store, project);
      const at = deps.now();
      await putProblemAction(deps.store, project, params.id, { ...actions.get(params.id), dismissed: { reason: body.reason, at_ms: at } }, at);
      log.info({ project, problem: params.id }, 'problem dismissed');
      return { status: 200, body: { id: params.id, reason: body.reason } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/merge',
      tag,
      role: 'admin',
      summary: 'Merges a problem into another with a reason: its units count in the other from then on, in the list and the statistics.',
      pathParams: IdParams,
      body: z.object({ into: z.string().min(1).max(64), reason: Reason }).strict(),
      responses: { 200: { description: 'the decision', schema: z.object({ id: z.string(), into: z.string(), reason: z.string() }) }, 400: { description: 'merging into itself', schema: ErrorSchema }, 404: { description: 'no such problem', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      if (body.into === params.id) return { status: 400, body: { error: 'into: a problem cannot be merged into itself; name another problem' } };
      for (const id of [params.id, body.into]) if (!(await getProblem(deps.store, project, id))) return { status: 404, body: { error: `no problem ${id} in this project` } };
      const actions = await listProblemActions(deps.store, project);
      if (actions.get(body.into)?.merged_into) return { status: 400, body: { error: `into: ${body.into} is itself merged into ${actions.get(body.into)!.merged_into!.id}; merge into that one` } };
      const at = deps.now();
      await putProblemAction(deps.store, project, params.id, { ...actions.get(params.id), merged_into: { id: body.into, reason: body.reason, at_ms: at } }, at);
      log.info({ project, problem: params.id, into: body.into }, 'problem merged');
      return { status: 200, body: { id: params.id, into: body.into, reason: body.reason } };
    },
  );
}
