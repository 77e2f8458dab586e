import type { Hono } from 'hono';
import { z } from 'zod';
import { checkModeProblems, type CheckRegistry } from '../../../shared/engines/checks/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { DOC_KINDS, MonitorInputSchema, MonitorNameSchema, MonitorSchema, listMonitors, type Monitor } from '../../../shared/engines/monitors/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { agreementShortfall } from './agreement-guard.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { projectRegistry } from './check-try-route.ts';
import { addRoute, type ApiEnv } from './route.ts';
import { refuseNames, type CheckNames } from './check-names.ts';
import { BooleanParam } from './query-params.ts';
import type { PlanSource } from './scoring-plan-source.ts';
import { MonitorPreviewSchema, previewMonitor } from './monitor-preview.ts';

const NameParams = z.object({ name: MonitorNameSchema });
const MonitorListSchema = z.object({ monitors: z.array(MonitorSchema) });
const DryRunQuery = z.object({ dry_run: BooleanParam.optional().describe('validate and preview (200: the agents seen in the last 7 days it would leave with no check), without saving') }).strict();

export interface MonitorRouteDeps {
  store: Store;
  log: Logger;
  now: () => number;
  /** The catalog and the configured definitions (user checks of the project are added). */
  createRegistry: () => CheckRegistry;
  checkNames: CheckNames;
  plans: PlanSource;
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

  async function save(project: string, input: z.output<typeof MonitorInputSchema>, existing: Monitor | null, dryRun = false) {
    const unknown = await deps.checkNames.problems(project, input.checks.map((name, i) => ({ at: `body.checks.${i}`, name })));
    if (unknown.length > 0) return refuseNames(unknown);
    if (input.modes) {
      const modeProblems = checkModeProblems(await projectRegistry(deps, project), input.checks, input.modes, 'body.modes');
      if (modeProblems.length > 0) return refuseNames(modeProblems);
    }
    if (input.min_agreement !== undefined && input.enabled) {
      const shortfall = await agreementShortfall(deps.store, await projectRegistry(deps, project), project, input.checks, input.min_agreement, input.min_samples);
      if (shortfall) return { status: 400, body: { error: `invalid request: ${shortfall}` } };
    }
    const t = deps.now();
    const monitor = MonitorSchema.parse({ ...input, project, created_at_ms: existing?.created_at_ms ?? t, updated_at_ms: existing ? Math.max(t, existing.updated_at_ms + 1) : t });
    if (dryRun) return { status: 200, body: await previewMonitor(deps.store, deps.plans, monitor, t) };
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
    { method: 'post', path: '/api/v1/monitors', tag, role: 'admin', summary: 'Creates a monitor: checks, filters, sample_rate, budget (409 when the name exists).', query: DryRunQuery, body: MonitorInputSchema, responses: { 201: { description: 'the stored monitor', schema: MonitorSchema }, 200: { description: 'with dry_run: the preview, nothing saved', schema: MonitorPreviewSchema }, 409: { description: 'a monitor of that name exists', schema: ErrorSchema } } },
    async (c, { body, query }) => {
      const project = c.get('project');
      if (await get(project, body.name)) return { status: 409, body: { error: `a monitor named "${body.name}" exists; PUT /api/v1/monitors/${body.name} replaces it` } };
      return save(project, body, null, query.dry_run === true);
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
    { method: 'put', path: '/api/v1/monitors/{name}', tag, role: 'admin', summary: 'Replaces a monitor; running scorers apply it within their poll interval.', pathParams: NameParams, query: DryRunQuery, body: MonitorInputSchema, responses: { ...responses, 200: { description: 'the stored monitor; with dry_run, the preview (nothing saved)', schema: z.union([MonitorSchema, MonitorPreviewSchema]) } } },
    async (c, { params, body, query }) => {
      const existing = await get(c.get('project'), params.name);
      if (!existing) return notFound(params.name);
      if (body.name !== params.name) return { status: 400, body: { error: `invalid request: body.name "${body.name}" differs from the path's "${params.name}"` } };
      return save(c.get('project'), body, existing, query.dry_run === true);
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
