import { Hono, type MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import { bodyLimits } from './body-limit.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { DEFAULT_ADDRESS_THROTTLE, DEFAULT_PREFIX_THROTTLE, createSessions, createThrottle, type Keyring, type ThrottleOptions } from '../../../shared/kit/access/index.ts';
import { EMPTY_ADDRESS_LIST, createAddressMatcher, type AddressMatcher, type OutboundPolicy } from '../../../shared/runtime/http/index.ts';
import { openApiDocument, type RouteSpec } from './api-spec.ts';
import { alertRoutes } from './alert-routes.ts';
import { keyAuth, type ApiAccess } from './key-auth.ts';
import { keyRoutes } from './key-routes.ts';
import { listingRoutes } from './listing-routes.ts';
import { explorerRoutes } from './explorer-routes.ts';
import { metricsRoute } from './metrics-route.ts';
import { monitoringRoutes } from './monitoring-routes.ts';
import { metricRoutes } from './metric-routes.ts';
import { stepMetricRoutes } from './step-metric-routes.ts';
import type { ApiEnv } from './route.ts';
import { checkGenerateRoute } from './check-generate-route.ts';
import { scenarioModelRoutes } from './scenario-model-routes.ts';
import { testRunRoutes } from './test-run-routes.ts';
import { checkScoreRoute } from './check-score-route.ts';
import { checkRoutes } from './check-routes.ts';
import { monitorRoutes } from './monitor-routes.ts';
import { simulationRoutes, type DocumentRedaction } from './simulation-routes.ts';
import { retentionRoutes } from './retention-routes.ts';
import { reviewRoutes } from './review-routes.ts';
import { datasetRoutes } from './dataset-routes.ts';
import { receiveRoutes } from './receive-routes.ts';
import { problemRoutes } from './problem-routes.ts';
import { problemActionRoutes } from './problem-actions.ts';
import { problemProposalRoute } from './problem-proposal-route.ts';
import { pipelineRoute } from './pipeline-status.ts';
import { checkTryRoute } from './check-try-route.ts';
import { backfillRoutes, type PrepareBackfill } from './backfill-routes.ts';
import { createCheckNames } from './check-names.ts';
import { createPlanSource } from './scoring-plan-source.ts';
import { scoringPlanRoutes } from './scoring-plan-routes.ts';
import { createCheckRegistry, type CheckRegistry, type CodeRunner, type JudgeClient } from '../../../shared/engines/checks/index.ts';
import { addStoredChecks } from '../../../shared/engines/monitors/index.ts';
import { dashboardRoutes, type CheckCatalog } from './pages/index.ts';
import { DEFAULT_ALERT_LIMITS, createAlertRepository, type AlertLimits } from '../../../shared/engines/alerts/index.ts';
import type { Metrics } from '../../../shared/kit/metrics/index.ts';

/** What the operator decides about the API's edges (shared/runtime/config); every field has a closed default. */
export interface ApiSecurity {
  /** Non-public webhook targets allowed anyway (`TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS`); default none. */
  alertTargets: OutboundPolicy;
  /** Proxies whose X-Forwarded-For/-Proto are believed (`TRACECHECK_TRUSTED_PROXIES`); default none. */
  trustedProxies: AddressMatcher;
  /** Bearer token for /metrics once keys exist (`TRACECHECK_METRICS_TOKEN`); default none (401). */
  metricsToken: string | null;
  /** Failed authentications allowed per client address and per key prefix in a window. */
  throttle: { byAddress: ThrottleOptions; byPrefix: ThrottleOptions };
  /** Alert rules per project, and whom and how often their email may reach. */
  alertLimits: AlertLimits;
}

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
  security?: Partial<ApiSecurity>;
  /** The model generate_check asks; absent: 503 naming the settings. */
  judge?: JudgeClient | null;
  /** Runs users' code checks for POST /api/v1/checks/score; absent: they answer not_run. */
  codeRunner?: CodeRunner;
  /** Redaction of what requests store beside units (simulation dialogs); absent: off. */
  redaction?: DocumentRedaction;
  /** The deployment's retention, which a project's own may only shorten unless allowed; default none. */
  retention?: { days: number | null; allowLonger: boolean };
  /** Makes backfills ready to run in this process (POST /api/v1/backfills); absent: 503 (only a process that scores runs them). */
  prepareBackfill?: PrepareBackfill;
}

const openProject: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set('project', 'default');
  c.set('role', 'open');
  await next();
};

/** The HTTP API over the store, and the dashboard's pages. Routes are tested through `app.request()`, with no port. */
export function createApp(deps: ApiDeps): Hono<ApiEnv> {
  const log = deps.log.child({ component: 'api' });
  const now = deps.now ?? Date.now;
  const security: ApiSecurity = {
    alertTargets: { allow: createAddressMatcher(EMPTY_ADDRESS_LIST) },
    trustedProxies: createAddressMatcher(EMPTY_ADDRESS_LIST),
    metricsToken: null,
    throttle: { byAddress: DEFAULT_ADDRESS_THROTTLE, byPrefix: DEFAULT_PREFIX_THROTTLE },
    alertLimits: DEFAULT_ALERT_LIMITS,
    ...deps.security,
  };
  const access: ApiAccess | undefined = deps.keyring
    ? {
        keyring: deps.keyring,
        sessions: createSessions({ store: deps.store, keyring: deps.keyring, now }),
        byAddress: createThrottle({ now, ...security.throttle.byAddress }),
        byPrefix: createThrottle({ now, ...security.throttle.byPrefix }),
        trustedProxies: security.trustedProxies,
      }
    : undefined;
  const app = new Hono<ApiEnv>();
  const routes: RouteSpec[] = [];
  app.use(requestId());
  app.use(bodyLimits());

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  if (deps.metrics) metricsRoute(app, deps.metrics, deps.keyring, security.metricsToken);
  app.get('/openapi.json', (c) => c.json(openApiDocument(routes, { title: 'tracecheck API', version: '1' })));

  app.use('/api/*', access ? keyAuth(access) : openProject);
  const createRegistry = deps.createRegistry ?? (() => createCheckRegistry());
  const checkNames = createCheckNames({ store: deps.store, log, createRegistry });
  const plans = createPlanSource({ store: deps.store, log, catalog: deps.checks ?? null });
  listingRoutes(app, routes, deps.store);
  explorerRoutes(app, routes, deps.store);
  monitoringRoutes(app, routes, deps.store, now, checkNames);
  metricRoutes(app, routes, deps.store, now);
  stepMetricRoutes(app, routes, deps.store, now);
  alertRoutes(app, routes, { store: deps.store, log: deps.log, now, alertTargets: security.alertTargets, limits: security.alertLimits, checkNames });
  checkRoutes(app, routes, { store: deps.store, log: deps.log, now, createRegistry });
  checkGenerateRoute(app, routes, { judge: deps.judge ?? null });
  checkScoreRoute(app, routes, { store: deps.store, log, createRegistry, judge: deps.judge ?? null, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) });
  scenarioModelRoutes(app, routes, { store: deps.store, now });
  testRunRoutes(app, routes, { store: deps.store, log, now, createRegistry, judge: deps.judge ?? null, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) });
  monitorRoutes(app, routes, { store: deps.store, log: deps.log, now, createRegistry, checkNames, plans });
  scoringPlanRoutes(app, routes, { store: deps.store, plans, now });
  simulationRoutes(app, routes, { store: deps.store, log: deps.log, now, ...(deps.redaction ? { redaction: deps.redaction } : {}) });
  retentionRoutes(app, routes, { store: deps.store, log: deps.log, now, deployment: deps.retention ?? { days: null, allowLonger: false } });
  reviewRoutes(app, routes, { store: deps.store, log: deps.log, now, checkNames });
  datasetRoutes(app, routes, { store: deps.store, log: deps.log, now, checkNames });
  receiveRoutes(app, routes, deps.store);
  problemRoutes(app, routes, { store: deps.store, log: deps.log, now });
  problemActionRoutes(app, routes, { store: deps.store, log: deps.log, now, checkNames, alertTargets: security.alertTargets, limits: security.alertLimits });
  problemProposalRoute(app, routes, { store: deps.store, log: deps.log, now, createRegistry, judge: deps.judge ?? null, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) });
  pipelineRoute(app, routes, { store: deps.store, now });
  checkTryRoute(app, routes, { store: deps.store, log: deps.log, now, createRegistry, judge: deps.judge ?? null, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) });
  backfillRoutes(app, routes, { prepare: deps.prepareBackfill ?? null, log });
  if (deps.keyring) keyRoutes(app, routes, { keyring: deps.keyring, log: deps.log });
  const alerts = createAlertRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored alert document does not parse; skipped'));
  const checks = deps.checks ?? null;
  const registryFor = async (project: string) => {
    if (!checks) return null;
    return addStoredChecks(createRegistry(), deps.store, (doc, problems) => log.warn({ id: doc.id, problems }, 'stored user check does not parse; skipped'), project);
  };
  dashboardRoutes(app, { store: deps.store, alerts, now, checks, registryFor, plans }, access);

  app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    const id = c.get('requestId');
    log.error({ err, requestId: id, path: c.req.path }, 'request failed');
    return c.json({ error: 'internal error', requestId: id }, 500);
  });
  return app;
}
