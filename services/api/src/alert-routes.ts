import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import {
  AlertEventSchema,
  AlertRuleInputSchema,
  AlertRuleSchema,
  AlertStateSchema,
  createAlertRepository,
  describeIssues,
  type AlertRule,
  type AlertState,
} from '../../../shared/alerts/index.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import type { QueryStore } from '../../../shared/store/contract.ts';

export interface AlertRoutesDeps {
  /** Rules, states and history live in the store's keyed documents. `Store & QueryStore` fits. */
  store: QueryStore;
  log: Logger;
  /** The caller's project; until API keys per project exist, `'default'`. */
  projectOf?: (c: Context) => string;
  now?: () => number;
}

/** A 400 answer: every invalid field, each as `field: message`. */
export const ProblemSchema = z.object({ error: z.string(), issues: z.array(z.string()) });

export const AlertRuleIdSchema = z.string().min(1).max(200);

/** A rule with its current evaluation state (null before its first evaluation). */
export const AlertRuleWithStateSchema = z.intersection(AlertRuleSchema, z.object({ status: AlertStateSchema.nullable() }));
export const AlertRuleListResponseSchema = z.object({ rules: z.array(AlertRuleWithStateSchema) });

export const AlertHistoryQuerySchema = z
  .object({
    rule_id: AlertRuleIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(1_000).default(50),
    /** The `next` of the previous page. */
    before: z.string().regex(/^\d{1,16}$/, 'must be the "next" cursor of a previous page').optional(),
  })
  .strict();
export const AlertHistoryResponseSchema = z.object({
  /** Newest first. */
  alerts: z.array(AlertEventSchema),
  /** Pass as `before` for the next page; null on the last page. */
  next: z.string().nullable(),
});

function problem(issues: string[]): z.infer<typeof ProblemSchema> {
  return { error: `invalid request: ${issues.join('; ')}`, issues };
}

/**
 * Alert rules and history: a sub-app to mount at `/api/v1`. `POST /alert-rules` (201, the stored
 * rule), `GET /alert-rules` (with states), `GET|PUT|DELETE /alert-rules/:id`, `GET /alerts`
 * (history, newest first, paged with `before`). Every route is scoped to the caller's project.
 */
export function alertRoutes(deps: AlertRoutesDeps): Hono {
  const log = deps.log.child({ component: 'api.alerts' });
  const repo = createAlertRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  const projectOf = deps.projectOf ?? (() => 'default');
  const now = deps.now ?? Date.now;
  const app = new Hono();

  async function readRuleInput(c: Context): Promise<{ ok: true; input: z.output<typeof AlertRuleInputSchema> } | { ok: false; issues: string[] }> {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return { ok: false, issues: ['(body): not valid JSON'] };
    }
    const parsed = AlertRuleInputSchema.safeParse(body);
    return parsed.success ? { ok: true, input: parsed.data } : { ok: false, issues: describeIssues(parsed.error) };
  }

  const withState = (rule: AlertRule, state: AlertState | undefined | null) => ({ ...rule, status: state ?? null });

  app.post('/alert-rules', async (c) => {
    const read = await readRuleInput(c);
    if (!read.ok) return c.json(problem(read.issues), 400);
    const t = now();
    const rule = AlertRuleSchema.parse({ ...read.input, id: randomUUID(), project: projectOf(c), created_at_ms: t, updated_at_ms: t });
    await repo.putRule(rule);
    log.info({ ruleId: rule.id, kind: rule.kind, project: rule.project }, 'alert rule created');
    return c.json(rule, 201);
  });

  app.get('/alert-rules', async (c) => {
    const project = projectOf(c);
    const [rules, states] = await Promise.all([repo.listRules(project), repo.listStates(project)]);
    return c.json({ rules: rules.map((r) => withState(r, states.get(r.id))) });
  });

  app.get('/alert-rules/:id', async (c) => {
    const id = AlertRuleIdSchema.safeParse(c.req.param('id'));
    if (!id.success) return c.json(problem(describeIssues(id.error, 'id')), 400);
    const rule = await repo.getRule(projectOf(c), id.data);
    if (!rule) return c.json({ error: `no alert rule with id "${id.data}"` }, 404);
    const states = await repo.listStates(rule.project);
    return c.json(withState(rule, states.get(rule.id)));
  });

  app.put('/alert-rules/:id', async (c) => {
    const id = AlertRuleIdSchema.safeParse(c.req.param('id'));
    if (!id.success) return c.json(problem(describeIssues(id.error, 'id')), 400);
    const read = await readRuleInput(c);
    if (!read.ok) return c.json(problem(read.issues), 400);
    const existing = await repo.getRule(projectOf(c), id.data);
    if (!existing) return c.json({ error: `no alert rule with id "${id.data}"` }, 404);
    // Replacing keeps the rule's state: an edit of a firing rule does not fire it a second time.
    const rule = AlertRuleSchema.parse({ ...read.input, id: existing.id, project: existing.project, created_at_ms: existing.created_at_ms, updated_at_ms: Math.max(now(), existing.updated_at_ms + 1) });
    await repo.putRule(rule);
    log.info({ ruleId: rule.id, kind: rule.kind, project: rule.project }, 'alert rule replaced');
    return c.json(rule);
  });

  app.delete('/alert-rules/:id', async (c) => {
    const id = AlertRuleIdSchema.safeParse(c.req.param('id'));
    if (!id.success) return c.json(problem(describeIssues(id.error, 'id')), 400);
    const project = projectOf(c);
    if (!(await repo.getRule(project, id.data))) return c.json({ error: `no alert rule with id "${id.data}"` }, 404);
    await repo.deleteRule(project, id.data);
    log.info({ ruleId: id.data, project }, 'alert rule deleted');
    return c.body(null, 204);
  });

  app.get('/alerts', async (c) => {
    const q = AlertHistoryQuerySchema.safeParse(c.req.query());
    if (!q.success) return c.json(problem(describeIssues(q.error, 'query')), 400);
    const page = await repo.listEvents({
      project: projectOf(c),
      limit: q.data.limit,
      ...(q.data.rule_id !== undefined ? { ruleId: q.data.rule_id } : {}),
      ...(q.data.before !== undefined ? { beforeMs: Number(q.data.before) } : {}),
    });
    return c.json({ alerts: page.events, next: page.nextBeforeMs === null ? null : String(page.nextBeforeMs) });
  });

  return app;
}
