import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { z } from 'zod';
import { AlertEventSchema, AlertRuleInputSchema, AlertRuleSchema, AlertStateSchema, createAlertRepository, type AlertRule, type AlertState } from '../../../shared/alerts/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import type { QueryStore } from '../../../shared/store/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

export const AlertRuleIdSchema = z.string().min(1).max(200);
const RuleIdParams = z.object({ id: AlertRuleIdSchema });

/** A rule with its current evaluation state (null before its first evaluation). */
export const AlertRuleWithStateSchema = z.intersection(AlertRuleSchema, z.object({ status: AlertStateSchema.nullable() }));
export const AlertRuleListResponseSchema = z.object({ rules: z.array(AlertRuleWithStateSchema) });

export const AlertHistoryQuerySchema = z
  .object({
    rule_id: AlertRuleIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(1_000).default(50),
    before: z.string().regex(/^\d{1,16}$/, 'must be the "next" cursor of a previous page').optional().describe('the `next` of the previous page'),
  })
  .strict();
export const AlertHistoryResponseSchema = z.object({
  /** Newest first. */
  alerts: z.array(AlertEventSchema),
  /** Pass as `before` for the next page; null on the last page. */
  next: z.string().nullable(),
});

const notFound = (id: string) => ({ status: 404, body: { error: `no alert rule with id "${id}"` } });

/**
 * Alert rules and history: `POST /api/v1/alert-rules` (201, the stored rule), `GET /alert-rules`
 * (with states), `GET|PUT|DELETE /alert-rules/{id}`, `GET /alerts` (history, newest first, paged
 * with `before`). Every route is scoped to the caller's project.
 */
export function alertRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; log: Logger; now: () => number }): void {
  const log = deps.log.child({ component: 'api.alerts' });
  const repo = createAlertRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  const withState = (rule: AlertRule, state: AlertState | undefined | null) => ({ ...rule, status: state ?? null });
  const tag = 'alerts';

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/alert-rules',
      tag,
      role: 'admin',
      summary: 'Creates an alert rule (threshold, regression or judge_health).',
      body: AlertRuleInputSchema,
      responses: { 201: { description: 'the stored rule', schema: AlertRuleSchema } },
    },
    async (c, { body }) => {
      const t = deps.now();
      const rule = AlertRuleSchema.parse({ ...body, id: randomUUID(), project: c.get('project'), created_at_ms: t, updated_at_ms: t });
      await repo.putRule(rule);
      log.info({ ruleId: rule.id, kind: rule.kind, project: rule.project }, 'alert rule created');
      return { status: 201, body: rule };
    },
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/alert-rules', tag, role: 'read', summary: "The project's alert rules, each with its state.", responses: { 200: { description: 'the rules', schema: AlertRuleListResponseSchema } } },
    async (c) => {
      const project = c.get('project');
      const [rules, states] = await Promise.all([repo.listRules(project), repo.listStates(project)]);
      return { status: 200, body: { rules: rules.map((r) => withState(r, states.get(r.id))) } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/alert-rules/{id}',
      tag,
      role: 'read',
      summary: 'One alert rule with its state.',
      pathParams: RuleIdParams,
      responses: { 200: { description: 'the rule', schema: AlertRuleWithStateSchema }, 404: { description: 'no such rule in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const rule = await repo.getRule(c.get('project'), params.id);
      if (!rule) return notFound(params.id);
      const states = await repo.listStates(rule.project);
      return { status: 200, body: withState(rule, states.get(rule.id)) };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'put',
      path: '/api/v1/alert-rules/{id}',
      tag,
      role: 'admin',
      summary: 'Replaces an alert rule; its state is kept, so an edit of a firing rule does not fire it again.',
      pathParams: RuleIdParams,
      body: AlertRuleInputSchema,
      responses: { 200: { description: 'the stored rule', schema: AlertRuleSchema }, 404: { description: 'no such rule in this project', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const existing = await repo.getRule(c.get('project'), params.id);
      if (!existing) return notFound(params.id);
      const rule = AlertRuleSchema.parse({ ...body, id: existing.id, project: existing.project, created_at_ms: existing.created_at_ms, updated_at_ms: Math.max(deps.now(), existing.updated_at_ms + 1) });
      await repo.putRule(rule);
      log.info({ ruleId: rule.id, kind: rule.kind, project: rule.project }, 'alert rule replaced');
      return { status: 200, body: rule };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'delete',
      path: '/api/v1/alert-rules/{id}',
      tag,
      role: 'admin',
      summary: 'Deletes an alert rule and its state (its history stays).',
      pathParams: RuleIdParams,
      responses: { 204: { description: 'deleted' }, 404: { description: 'no such rule in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const project = c.get('project');
      if (!(await repo.getRule(project, params.id))) return notFound(params.id);
      await repo.deleteRule(project, params.id);
      log.info({ ruleId: params.id, project }, 'alert rule deleted');
      return { status: 204 };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/alerts',
      tag,
      role: 'read',
      summary: 'Alert history, newest first: each firing, reminder and recovery with its payload and deliveries (outcome, attempts).',
      query: AlertHistoryQuerySchema,
      responses: { 200: { description: 'a page of history', schema: AlertHistoryResponseSchema } },
    },
    async (c, { query: q }) => {
      const page = await repo.listEvents({
        project: c.get('project'),
        limit: q.limit,
        ...(q.rule_id !== undefined ? { ruleId: q.rule_id } : {}),
        ...(q.before !== undefined ? { beforeMs: Number(q.before) } : {}),
      });
      return { status: 200, body: { alerts: page.events, next: page.nextBeforeMs === null ? null : String(page.nextBeforeMs) } };
    },
  );
}
