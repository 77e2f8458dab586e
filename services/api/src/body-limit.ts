import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv } from './route.ts';

// Every route's body is bounded before anything parses it, and by what that route needs: the login
// form is a key and a path, so an unauthenticated caller can make us hold at most 16 KB. A declared
// Content-Length over the limit is refused from the headers alone; a chunked body is counted as it
// arrives and refused at the first chunk past the limit. The 413 closes the connection, so the rest
// of a large body is never read.

const BODY_LIMITS = {
  /** POST /login, /logout and anything not listed (GETs carry no body). */
  small: 16 * 1024,
  /** Alert rules and monitors: a few fields and up to ten targets. */
  config: 64 * 1024,
  /** A check definition with its code, and a simulation's whole dialog: the store keeps documents of up to 1 MB. */
  document: 1024 * 1024,
} as const;

/** The limit of a request, by its path. */
function bodyLimitFor(path: string): number {
  if (path === '/api/v1/checks' || path.startsWith('/api/v1/simulations/')) return BODY_LIMITS.document;
  // Rows to score (POST /api/v1/checks/score): up to 100 outputs with their dialogs.
  if (path === '/api/v1/checks/score') return BODY_LIMITS.document;
  // A queue's unit ids (up to 10,000) and a review's corrected output.
  if (path.startsWith('/api/v1/review-queues') || path === '/api/v1/reviews' || path === '/api/v1/datasets') return BODY_LIMITS.document;
  if (path.startsWith('/api/v1/')) return BODY_LIMITS.config;
  return BODY_LIMITS.small;
}

function tooLarge(c: Context<ApiEnv>, limit: number): Response {
  c.header('Connection', 'close');
  return c.json({ error: `request body too large: this route takes at most ${limit} bytes` }, 413);
}

export function bodyLimits(): MiddlewareHandler<ApiEnv> {
  const byLimit = new Map<number, MiddlewareHandler<ApiEnv>>();
  for (const limit of new Set(Object.values(BODY_LIMITS))) byLimit.set(limit, bodyLimit({ maxSize: limit, onError: (c) => tooLarge(c as Context<ApiEnv>, limit) }));
  return async (c, next) => {
    const limit = bodyLimitFor(c.req.path);
    const length = c.req.header('content-length');
    // hono's middleware reads a malformed length as 0; refuse it instead of trusting the stream.
    if (length !== undefined && !/^\d{1,15}$/.test(length.trim())) return c.json({ error: 'invalid Content-Length' }, 400);
    return byLimit.get(limit)!(c, next);
  };
}
