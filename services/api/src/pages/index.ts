import type { Hono } from 'hono';
import type { ApiAccess } from '../key-auth.ts';
import type { ApiEnv } from '../route.ts';
import { agentPage, agentsPage } from './agents-page.ts';
import { alertsPage } from './alerts-page.ts';
import { FAVICON, SCRIPT, STYLESHEET } from './assets.ts';
import { checkPage } from './check-page.ts';
import { checksPage } from './checks-page.ts';
import { comparePage } from './compare-page.ts';
import { loginRoutes, pageAuth } from './login-page.ts';
import { overviewPage } from './overview-page.ts';
import type { PageDeps } from './page-deps.ts';
import { unitPage } from './unit-page.ts';
import { testRunComparePage, testRunPage, testRunsPage } from './test-runs-page.ts';
import { receivePage } from './receive-page.ts';
import { problemDetailPage, problemsPage } from './problems-page.ts';
import { sessionsPage, unitsPage } from './explorer-page.ts';
import { reviewPage, reviewQueuesPage } from './review-page.ts';
import { REVIEW_SCRIPT } from './review-script.ts';
import { REFRESH_SCRIPT } from './refresh-script.ts';
import { MONITOR_SCRIPT } from './monitor-script.ts';

export type { CheckCatalog, PageDeps } from './page-deps.ts';

const PAGE_PATHS = ['/', '/units', '/sessions', '/checks', '/checks/:name', '/units/:id', '/compare', '/alerts', '/review-queues', '/review/:id', '/agents', '/agents/:name', '/receive', '/test-runs', '/test-runs/:id', '/problems', '/problems/:id'] as const;

/** The dashboard: server-rendered pages over the same query functions as the JSON API. */
export function dashboardRoutes(app: Hono<ApiEnv>, deps: PageDeps, access: ApiAccess | undefined): void {
  const asset = (body: string, type: string) => () =>
    new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' } });
  app.get('/assets/app.css', asset(STYLESHEET, 'text/css; charset=utf-8'));
  app.get('/assets/app.js', asset(SCRIPT, 'text/javascript; charset=utf-8'));
  app.get('/assets/review.js', asset(REVIEW_SCRIPT, 'text/javascript; charset=utf-8'));
  app.get('/assets/refresh.js', asset(REFRESH_SCRIPT, 'text/javascript; charset=utf-8'));
  app.get('/assets/favicon.svg', asset(FAVICON, 'image/svg+xml'));
  // Browsers ask for /favicon.ico whatever the page says.
  app.get('/favicon.ico', asset(FAVICON, 'image/svg+xml'));
  app.get('/assets/monitors.js', asset(MONITOR_SCRIPT, 'text/javascript; charset=utf-8'));
  if (access) {
    loginRoutes(app, access);
    for (const path of PAGE_PATHS) app.use(path, pageAuth(access));
  } else {
    for (const path of PAGE_PATHS) {
      app.use(path, async (c, next) => {
        c.set('project', 'default');
        c.set('role', 'open');
        await next();
      });
    }
  }
  app.get('/', (c) => overviewPage(c, deps));
  app.get('/checks', (c) => checksPage(c, deps));
  app.get('/checks/:name', (c) => checkPage(c, deps));
  app.get('/units', (c) => unitsPage(c, deps));
  app.get('/sessions', (c) => sessionsPage(c, deps));
  app.get('/units/:id', (c) => unitPage(c, deps));
  app.get('/compare', (c) => comparePage(c, deps));
  app.get('/test-runs', (c) => testRunsPage(c, deps));
  app.get('/test-runs/compare', (c) => testRunComparePage(c, deps));
  app.get('/test-runs/:id', (c) => testRunPage(c, deps));
  app.get('/alerts', (c) => alertsPage(c, deps));
  app.get('/review-queues', (c) => reviewQueuesPage(c, deps));
  app.get('/review/:id', (c) => reviewPage(c, deps));
  app.get('/agents', (c) => agentsPage(c, deps));
  app.get('/agents/:name', (c) => agentPage(c, deps));
  app.get('/receive', (c) => receivePage(c, deps));
  app.get('/problems', (c) => problemsPage(c, deps));
  app.get('/problems/:id', (c) => problemDetailPage(c, deps));
}
