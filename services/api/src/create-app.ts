import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { z } from 'zod';
import type { Logger } from '../../../shared/logging/index.ts';
import type { Score } from '../../../shared/schemas/index.ts';
import type { Store } from '../../../shared/store/index.ts';
import type { QueryStore } from '../../../shared/store/contract.ts';
import { alertRoutes } from './alert-routes.ts';
import { TimeParamSchema } from './time-param.ts';

export interface ApiDeps {
  store: Store;
  log: Logger;
  /** Where alert rules and history live; the alert routes are mounted only with one. */
  alertStore?: QueryStore;
}

const ScoresQuerySchema = z
  .object({
    check: z.string().min(1).max(200).optional(),
    unit_id: z.string().min(1).max(200).optional(),
    from: TimeParamSchema.optional(),
    to: TimeParamSchema.optional(),
    limit: z.coerce.number().int().min(1).max(10_000).default(100),
  })
  .strict();

const UnitIdSchema = z.string().min(1).max(200);

/** The public shape of a score: the stored row with ISO timestamps beside the epoch ones. */
function presentScore(s: Score) {
  return { ...s, created_at: new Date(s.created_at_ms).toISOString(), unit_end_time: new Date(s.unit_end_time_ms).toISOString() };
}

function problem(issues: z.ZodError): { error: string; issues: string[] } {
  const list = issues.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`);
  return { error: `invalid request: ${list.join('; ')}`, issues: list };
}

/** The HTTP API over the store. Routes are tested through `app.request()`, with no port. */
export function createApp(deps: ApiDeps): Hono {
  const log = deps.log.child({ component: 'api' });
  const app = new Hono();
  app.use(requestId());

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/api/v1/units/:unitId', async (c) => {
    const id = UnitIdSchema.safeParse(c.req.param('unitId'));
    if (!id.success) return c.json(problem(id.error), 400);
    const unitId = /^[0-9A-F]{32}$/.test(id.data) ? id.data.toLowerCase() : id.data;
    const unit = await deps.store.getUnit(unitId);
    if (!unit) return c.json({ error: `no unit with id "${unitId}"` }, 404);
    const scores = await deps.store.queryScores({ unitId, limit: 10_000 });
    return c.json({ unit: { ...unit, messages: unit.message_history }, scores: scores.map(presentScore) });
  });

  app.get('/api/v1/scores', async (c) => {
    const q = ScoresQuerySchema.safeParse(c.req.query());
    if (!q.success) return c.json(problem(q.error), 400);
    const { check, unit_id: unitId, from, to, limit } = q.data;
    const scores = await deps.store.queryScores({
      limit,
      ...(check !== undefined ? { check } : {}),
      ...(unitId !== undefined ? { unitId } : {}),
      ...(from !== undefined ? { fromMs: from } : {}),
      ...(to !== undefined ? { toMs: to } : {}),
    });
    return c.json({ scores: scores.map(presentScore), count: scores.length });
  });

  if (deps.alertStore) app.route('/api/v1', alertRoutes({ store: deps.alertStore, log: deps.log }));

  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    const id = c.get('requestId');
    log.error({ err, requestId: id, path: c.req.path }, 'request failed');
    return c.json({ error: 'internal error', requestId: id }, 500);
  });
  return app;
}
