import type { Hono } from 'hono';
import { z } from 'zod';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { ProjectRetentionSchema, RETENTION_DOC_ID, RETENTION_DOC_KIND } from '../../../shared/kit/retention/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

const RetentionSchema = z.object({ days: z.number().int().nullable() });

export interface RetentionRouteDeps {
  store: QueryStore;
  log: Logger;
  now: () => number;
  /** TRACECHECK_RETENTION_DAYS, and whether a project may keep rows longer (TRACECHECK_RETENTION_ALLOW_LONGER). */
  deployment: { days: number | null; allowLonger: boolean };
}

/**
 * The project's own retention (the key's project): rows older than `days` are removed at the next
 * pass of the retention job. It may only be shorter than TRACECHECK_RETENTION_DAYS (the operator's
 * promise to the people in the traces) unless the operator allows longer. Changing it takes an admin key.
 */
export function retentionRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: RetentionRouteDeps): void {
  const log = deps.log.child({ component: 'api.retention' });
  const tag = 'retention';

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/retention', tag, role: 'read', summary: "The project's own retention in days (null: the deployment's, TRACECHECK_RETENTION_DAYS).", responses: { 200: { description: 'the retention', schema: RetentionSchema } } },
    async (c) => {
      const doc = await deps.store.getDoc(RETENTION_DOC_KIND, c.get('project'), RETENTION_DOC_ID);
      const parsed = doc ? ProjectRetentionSchema.safeParse(doc.body) : null;
      return { status: 200, body: { days: parsed?.success ? parsed.data.days : null } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'put',
      path: '/api/v1/retention',
      tag,
      role: 'admin',
      summary: "Sets the project's retention: units, revisions, scores and alert history older than `days` are removed (the next pass, at most TRACECHECK_RETENTION_INTERVAL_MS later).",
      body: ProjectRetentionSchema,
      responses: { 200: { description: 'the retention', schema: RetentionSchema }, 400: { description: "not 1 to 36,500 days, or longer than the deployment's", schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const project = c.get('project');
      const { days: most, allowLonger } = deps.deployment;
      if (most !== null && !allowLonger && body.days > most) {
        return { status: 400, body: { error: `days: this deployment keeps rows ${most} days (TRACECHECK_RETENTION_DAYS); a project may only shorten that unless the operator sets TRACECHECK_RETENTION_ALLOW_LONGER=true` } };
      }
      await deps.store.putDoc({ kind: RETENTION_DOC_KIND, project, id: RETENTION_DOC_ID, body, updated_at_ms: deps.now() });
      log.info({ project, days: body.days }, 'project retention set');
      return { status: 200, body: { days: body.days } };
    },
  );

  addRoute(
    app,
    routes,
    { method: 'delete', path: '/api/v1/retention', tag, role: 'admin', summary: "Removes the project's own retention: the deployment's applies again.", responses: { 204: { description: 'removed' } } },
    async (c) => {
      const project = c.get('project');
      await deps.store.deleteDoc(RETENTION_DOC_KIND, project, RETENTION_DOC_ID);
      log.info({ project }, 'project retention removed');
      return { status: 204 };
    },
  );
}
