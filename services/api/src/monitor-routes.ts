import type { Hono } from 'hono';
import { z } from 'zod';
import type { CheckRegistry } from '../../../shared/engines/checks/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { DOC_KINDS, MonitorInputSchema, MonitorNameSchema, MonitorSchema, listMonitors, listUserChecks, type Monitor } from '../../../shared/engines/monitors/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { agreementShortfall } from './agreement-guard.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { projectRegistry } from './check-try-route.ts';
import { addRoute, type ApiEnv } from './route.ts';

const NameParams = z.object({ name: MonitorNameSchema });
const MonitorListSchema = z.object({ monitors: z.array(MonitorSchema) });

export interface MonitorRouteDeps {
  store: Store;
  log: Logger;
  now: () => number;
  /** The catalog and the configured definitions (user checks of the project are added). */
  createRegistry: () => CheckRegistry;
}

/** Check names the project can run: the registry's and the project's stored user checks. */
export async function knownCheckNames(deps: Pick<MonitorRouteDeps, 'store' | 'log' | 'createRegistry'>, project: string): Promise<Set<string>> {
  const names = new Set(deps.createRegistry().list().map((c) => c.name));
  const invalid = (doc: { id: string }): void => deps.log.warn({ id: doc.id }, 'stored user check does not parse; skipped');
  for (const { check } of await listUserChecks(deps.store, invalid, project)) names.add(check.name);
  return names;
}

/**
 * Monitors: which checks run on which units, sampled and within a judge budget. Stored as docs,
 * so every running scorer picks a change up within its poll interval. Keyed by name per project.
 */
export function monitorRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: MonitorRouteDeps): void {
  const log = deps.log.child({ component: 'api.monitors' });
  const tag = 'monitors';
  const invalid = (doc: { id: string }, problems: string): void => log.warn({ id: doc.id, problems }, 'stored monitor does not parse; skipped');
  const notFound = (name: string) => ({ status: 404, body: { error: `no monitor named "${name}"` } });

  async function save(project: string, input: z.output<typeof MonitorInputSchema>, existing: Monitor | null) {
    const known = await knownCheckNames(deps, project);
    const unknown = input.checks.filter((c) => !known.has(c));
    if (unknown.length > 0) return { status: 400, body: { error: `invalid request: unknown checks: ${unknown.join(', ')} (GET /api/v1/checks lists them)` } };
    if (input.min_agreement !== undefined && input.enabled) {
      const shortfall = await agreementShortfall(deps.store, await projectRegistry(deps, project), project, input.checks, input.min_agreement, input.min_samples);
      if (shortfall) return { status: 400, body: { error: `invalid request: ${shortfall}` } };
    }
    const t = deps.now();
    const monitor = MonitorSchema.parse({ ...input, project, created_at_ms: existing?.created_at_ms ?? t, updated_at_ms: existing ? Math.max(t, existing.updated_at_ms + 1) : t });
    await deps.store.putDoc({ kind: DOC_KINDS.monitor, project, id: monitor.name, body: monitor, updated_at_ms: monitor.updated_at_ms });
    log.info({ monitor: monitor.name, project, checks: monitor.checks, sampleRate: monitor.sample_rate }, existing ? 'monitor replaced' : 'monitor created');
    return { status: existing ? 200 : 201, body: monitor };
  }

  async function get(project: string, name: string): Promise<Monitor | null> {
    const doc = await deps.store.getDoc(DOC_KINDS.monitor, project, name);
    const parsed = doc ? MonitorSchema.safeParse(doc.body) : null;
    return parsed?.success ? parsed.data : null;
  }

  const responses = { 200: { description: 'the stored monitor', schema: MonitorSchema }, 404: { description: 'no such monitor in this project', schema: ErrorSchema } };

  addRoute(
    app,
    routes,
    { method: 'post', path: '/api/v1/monitors', tag, role: 'admin', summary: 'Creates a monitor: checks, filters, sample_rate, budget (409 when the name exists).', body: MonitorInputSchema, responses: { 201: { description: 'the stored monitor', schema: MonitorSchema }, 409: { description: 'a monitor of that name exists', schema: ErrorSchema } } },
    async (c, { body }) => {
      const project = c.get('project');
      if (await get(project, body.name)) return { status: 409, body: { error: `a monitor named "${body.name}" exists; PUT /api/v1/monitors/${body.name} replaces it` } };
      return save(project, body, null);
    },
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/monitors', tag, role: 'read', summary: "The project's monitors.", responses: { 200: { description: 'the monitors', schema: MonitorListSchema } } },
    async (c) => ({ status: 200, body: { monitors: (await listMonitors(deps.store, invalid, c.get('project'))).sort((a, b) => a.name.localeCompare(b.name)) } }),
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/monitors/{name}', tag, role: 'read', summary: 'One monitor.', pathParams: NameParams, responses },
    async (c, { params }) => {
      const m = await get(c.get('project'), params.name);
      return m ? { status: 200, body: m } : notFound(params.name);
    },
  );

  addRoute(
    app,
    routes,
    { method: 'put', path: '/api/v1/monitors/{name}', tag, role: 'admin', summary: 'Replaces a monitor; running scorers apply it within their poll interval.', pathParams: NameParams, body: MonitorInputSchema, responses },
    async (c, { params, body }) => {
      const existing = await get(c.get('project'), params.name);
      if (!existing) return notFound(params.name);
      if (body.name !== params.name) return { status: 400, body: { error: `invalid request: body.name "${body.name}" differs from the path's "${params.name}"` } };
      return save(c.get('project'), body, existing);
    },
  );

  addRoute(
    app,
    routes,
    { method: 'delete', path: '/api/v1/monitors/{name}', tag, role: 'admin', summary: 'Deletes a monitor.', pathParams: NameParams, responses: { 204: { description: 'deleted' }, 404: responses[404] } },
    async (c, { params }) => {
      const project = c.get('project');
      if (!(await get(project, params.name))) return notFound(params.name);
      await deps.store.deleteDoc(DOC_KINDS.monitor, project, params.name);
      log.info({ monitor: params.name, project }, 'monitor deleted');
      return { status: 204 };
    },
  );
}
