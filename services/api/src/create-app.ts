import { Hono, type MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import { bodyLimits } from './body-limit.ts';
import type { Logger } from '../../../shared/logging/index.ts';
import type { Store } from '../../../shared/store/index.ts';
import type { Keyring } from '../../../shared/access/index.ts';
import { openApiDocument, type RouteSpec } from './api-spec.ts';
import { alertRoutes } from './alert-routes.ts';
import { keyAuth } from './key-auth.ts';
import { listingRoutes } from './listing-routes.ts';
import { monitoringRoutes } from './monitoring-routes.ts';
import type { ApiEnv } from './route.ts';
import { checkRoutes } from './check-routes.ts';
import { monitorRoutes } from './monitor-routes.ts';
import { simulationRoutes } from './simulation-routes.ts';
import { createCheckRegistry, type CheckRegistry } from '../../../shared/checks/index.ts';
import { dashboardRoutes, type CheckCatalog } from './pages/index.ts';
import { createAlertRepository } from '../../../shared/alerts/index.ts';
import { METRICS_CONTENT_TYPE, renderMetrics, type Metrics } from '../../../shared/metrics/index.ts';

export interface ApiDeps {
  store: Store;
  log: Logger;
  /** API keys; absent: every request is the `default` project (the embedded quick start). */
  keyring?: Keyring;
  now?: () => number;
  /** The catalog plus configured definitions (`TRACECHECK_CHECK_DEFINITIONS`); default: the catalog. */
  createRegistry?: () => CheckRegistry;
  /** The checks the dashboard describes (definitions, versions, which run live). */
  checks?: CheckCatalog;
  /** The process's metrics, served at GET /metrics. */
  metrics?: Metrics;
}

const openProject: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set('project', 'default');
  await next();
};

/** The HTTP API over the store, and the dashboard's pages. Routes are tested through `app.request()`, with no port. */
export function createApp(deps: ApiDeps): Hono<ApiEnv> {
  const log = deps.log.child({ component: 'api' });
  const app = new Hono<ApiEnv>();
  const routes: RouteSpec[] = [];
  app.use(requestId());
  app.use(bodyLimits());

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  const metrics = deps.metrics;
  if (metrics) app.get('/metrics', async (c) => c.body(await renderMetrics(metrics), 200, { 'content-type': METRICS_CONTENT_TYPE }));
  app.get('/openapi.json', (c) => c.json(openApiDocument(routes, { title: 'tracecheck API', version: '1' })));

  app.use('/api/*', deps.keyring ? keyAuth(deps.keyring) : openProject);
  listingRoutes(app, routes, deps.store);
  monitoringRoutes(app, routes, deps.store, deps.now ?? Date.now);
  alertRoutes(app, routes, { store: deps.store, log: deps.log, now: deps.now ?? Date.now });
  const createRegistry = deps.createRegistry ?? (() => createCheckRegistry());
  checkRoutes(app, routes, { store: deps.store, log: deps.log, now: deps.now ?? Date.now, createRegistry });
  monitorRoutes(app, routes, { store: deps.store, log: deps.log, now: deps.now ?? Date.now, createRegistry });
  simulationRoutes(app, routes, { store: deps.store, log: deps.log, now: deps.now ?? Date.now });
  const alerts = createAlertRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  dashboardRoutes(app, { store: deps.store, alerts, now: deps.now ?? Date.now, checks: deps.checks ?? null }, deps.keyring);

  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    const id = c.get('requestId');
    log.error({ err, requestId: id, path: c.req.path }, 'request failed');
    return c.json({ error: 'internal error', requestId: id }, 500);
  });
  return app;
}
