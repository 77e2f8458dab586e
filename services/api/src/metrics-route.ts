import type { Hono } from 'hono';
import { METRICS_DENIED, createMetricsAccess, type Keyring } from '../../../shared/kit/access/index.ts';
import { METRICS_CONTENT_TYPE, renderMetrics, type Metrics } from '../../../shared/kit/metrics/index.ts';
import type { ApiEnv } from './route.ts';

/** GET /metrics, the operator's once API keys exist (shared/kit/access/metrics-access.ts says why). */
export function metricsRoute(app: Hono<ApiEnv>, metrics: Metrics, keyring: Keyring | undefined, token: string | null): void {
  const allowed = createMetricsAccess(keyring, token);
  app.get('/metrics', async (c) => {
    if (!(await allowed(c.req.header('authorization')))) {
      c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: METRICS_DENIED }, 401);
    }
    return c.body(await renderMetrics(metrics), 200, { 'content-type': METRICS_CONTENT_TYPE });
  });
}
