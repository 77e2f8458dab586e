import { timingSafeEqual } from 'node:crypto';
import type { Keyring } from './keyring.ts';
import { bearerToken } from './keys.ts';

// The process's metrics name every project's checks and monitors, so once API keys exist (more
// than one tenant may use this server) they are the operator's: GET /metrics then needs the
// bearer token of TRACECHECK_METRICS_TOKEN, which no project key can stand in for. With no key at
// all everything is open as `default` anyway, and so are the metrics. One rule for every port that
// serves /metrics (the API's and the collector's).

/** Whether a request with this Authorization header may read /metrics. */
export type MetricsAccess = (authorization: string | undefined) => Promise<boolean>;

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createMetricsAccess(keyring: Keyring | undefined, token: string | null): MetricsAccess {
  return async (authorization) => {
    const keysExist = keyring ? !(await keyring.authenticate(undefined, ['read'])).ok : false;
    if (!keysExist) return true;
    const presented = bearerToken(authorization);
    return token !== null && presented !== null && sameToken(presented, token);
  };
}

export const METRICS_DENIED = 'GET /metrics needs Authorization: Bearer <TRACECHECK_METRICS_TOKEN> once API keys exist';
