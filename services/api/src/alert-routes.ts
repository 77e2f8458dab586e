import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { AlertRuleInputSchema, AlertRuleSchema, AlertStateSchema, alertLimitProblems, createAlertRepository, type AlertLimits, type AlertRule, type AlertRuleInput, type AlertState } from '../../../shared/engines/alerts/index.ts';
import { checkOutboundTarget, type OutboundPolicy } from '../../../shared/runtime/http/index.ts';
import { AlertEventViewSchema, maskEvent, maskRule } from './alert-views.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, canManage, type Answer, type ApiEnv } from './route.ts';
import { getProblem } from '../../../shared/engines/problems/index.ts';
import type { CheckNames } from './check-names.ts';

const AlertRuleIdSchema = z.string().min(1).max(200);
const RuleIdParams = z.object({ id: AlertRuleIdSchema });

/** A rule with its current evaluation state (null before its first evaluation). */
const AlertRuleWithStateSchema = z.intersection(AlertRuleSchema, z.object({ status: AlertStateSchema.nullable() }));
const AlertRuleListResponseSchema = z.object({ rules: z.array(AlertRuleWithStateSchema) });

const AlertHistoryQuerySchema = z
  .object({
    rule_id: AlertRuleIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(1_000).default(50),
    before: z.string().regex(/^\d{1,16}$/, 'must be the "next" cursor of a previous page').optional().describe('the `next` of the previous page'),
  })
  .strict();
const AlertHistoryResponseSchema = z.object({
  /** Newest first. */
  alerts: z.array(AlertEventViewSchema),
  /** Pass as `before` for the next page; null on the last page. */
  next: z.string().nullable(),
});

const notFound = (id: string) => ({ status: 404, body: { error: `no alert rule with id "${id}"` } });

/**
 * A target that resolves into loopback, private, link-local or metadata ranges the operator did not
 * allow is a 400 now, not a failed delivery later (the alerter checks again at every delivery). A
 * name that does not resolve yet is taken: it can reach nothing until it does.
 */
async function targetProblems(input: AlertRuleInput, policy: OutboundPolicy): Promise<string[]> {
  // Email goes to the operator's SMTP server, not to an address the rule names.
  const checks = await Promise.all((input.notify ?? []).map((t) => (t.type === 'email' || t.url === undefined ? Promise.resolve(null) : checkOutboundTarget(t.url, policy))));
  return checks.flatMap((c, i) => (c === null || c.ok || c.unresolved ? [] : [`body.notify.${i}.url: ${c.reason}`]));
}

type RuleDeps = { store: QueryStore; log: Logger; now: () => number; alertTargets: OutboundPolicy; limits: AlertLimits; checkNames: CheckNames };

const refused = (problems: string[]) => ({ status: 400, body: { error: `invalid request: ${problems.join('; ')}`, issues: problems } });

/** What is wrong with a rule beyond its shape: a misspelt check (it would sit at ok and never fire), a problem that does not exist, a target it may not call. */
async function ruleProblems(deps: RuleDeps, project: string, input: AlertRuleInput): Promise<string[]> {
  const check = 'check' in input ? input.check : undefined;
  const named = await deps.checkNames.problems(project, check === undefined ? [] : [{ at: 'body.check', name: check }], { scored: true });
  const problem = input.kind === 'problem' && input.problem_id !== undefined && !(await getProblem(deps.store, project, input.problem_id)) ? [`body.problem_id: no problem "${input.problem_id}" in this project`] : [];
  return [...named, ...problem, ...(await targetProblems(input, deps.alertTargets))];
}

/** Stores a new rule: 201 with it, 400 naming every problem (also a problem's rule, problem-actions.ts). */
export async function createAlertRule(deps: RuleDeps, project: string, body: z.output<typeof AlertRuleInputSchema>): Promise<Answer> {
  const repo = createAlertRepository(deps.store);
  const problems = [...alertLimitProblems(body, await repo.listRules(project), deps.limits), ...(await ruleProblems(deps, project, body))];
  if (problems.length > 0) return refused(problems);
  const t = deps.now();
  const rule = AlertRuleSchema.parse({ ...body, id: randomUUID(), project, created_at_ms: t, updated_at_ms: t });
  await repo.putRule(rule);
  deps.log.info({ component: 'api.alerts', ruleId: rule.id, kind: rule.kind, project: rule.project }, 'alert rule created');
  return { status: 201, body: rule };
}

/**
 * Alert rules and history: `POST /api/v1/alert-rules` (201, the stored rule), `GET /alert-rules`
 * (with states), `GET|PUT|DELETE /alert-rules/{id}`, `GET /alerts` (history, newest first, paged
 * with `before`). Every route is scoped to the caller's project.
 */
export function alertRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: RuleDeps): void {
  const log = deps.log.child({ component: 'api.alerts' });
  const repo = createAlertRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  // Targets' URLs carry secrets (Slack's path is its bearer token): read keys see them masked.
  const withState = (c: Context<ApiEnv>, rule: AlertRule, state: AlertState | undefined | null) => ({ ...(canManage(c) ? rule : maskRule(rule)), status: state ?? null });
  const problemsOf = (project: string, input: AlertRuleInput) => ruleProblems(deps, project, input);
  const tag = 'alerts';

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/alert-rules',
      tag,
      role: 'admin',
      summary: "Creates an alert rule (threshold, regression, judge_health, no_data, agreement, metric_threshold, metric_regression, or problem: a problem's state changes problem_new, problem_regressed, problem_growing).",
      body: AlertRuleInputSchema,
      responses: { 201: { description: 'the stored rule', schema: AlertRuleSchema } },
    },
    async (c, { body }) => createAlertRule(deps, c.get('project'), body),
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/alert-rules', tag, role: 'read', summary: "The project's alert rules, each with its state.", responses: { 200: { description: 'the rules', schema: AlertRuleListResponseSchema } } },
    async (c) => {
      const project = c.get('project');
      const [rules, states] = await Promise.all([repo.listRules(project), repo.listStates(project)]);
      return { status: 200, body: { rules: rules.map((r) => withState(c, r, states.get(r.id))) } };
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
      return { status: 200, body: withState(c, rule, states.get(rule.id)) };
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
      const others = (await repo.listRules(existing.project)).filter((r) => r.id !== existing.id);
      const problems = [...alertLimitProblems(body, others, deps.limits, true), ...(await problemsOf(existing.project, body))];
      if (problems.length > 0) return refused(problems);
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
      summary:
        'Alert history, newest first: each firing, reminder and recovery with its payload and deliveries (outcome, attempts, status, error). A read key sees each delivery\'s outcome only, and target URLs masked.',
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
      return { status: 200, body: { alerts: canManage(c) ? page.events : page.events.map(maskEvent), next: page.nextBeforeMs === null ? null : String(page.nextBeforeMs) } };
    },
  );
}
