import { timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { bearerToken, type Keyring } from '../../../shared/access/index.ts';
import { METRICS_CONTENT_TYPE, renderMetrics, type Metrics } from '../../../shared/metrics/index.ts';
import type { ApiEnv } from './route.ts';

// The process's metrics name every project's checks and monitors, so once API keys exist (more
// than one tenant may use this server) they are the operator's: GET /metrics then needs the
// bearer token of TRACECHECK_METRICS_TOKEN, which no project key can stand in for. With no key at
// all everything is open as `default` anyway, and so are the metrics.

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function metricsRoute(app: Hono<ApiEnv>, metrics: Metrics, keyring: Keyring | undefined, token: string | null): void {
  app.get('/metrics', async (c) => {
    const keysExist = keyring ? !(await keyring.authenticate(undefined, ['read'])).ok : false;
    if (keysExist) {
      const presented = bearerToken(c.req.header('authorization'));
      if (token === null || presented === null || !sameToken(presented, token)) {
        c.header('WWW-Authenticate', 'Bearer');
        return c.json({ error: 'GET /metrics needs Authorization: Bearer <TRACECHECK_METRICS_TOKEN> once API keys exist' }, 401);
      }
    }
    return c.body(await renderMetrics(metrics), 200, { 'content-type': METRICS_CONTENT_TYPE });
  });
}
