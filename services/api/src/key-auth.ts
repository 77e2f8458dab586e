import type { MiddlewareHandler } from 'hono';
import type { Keyring } from '../../../shared/access/index.ts';
import type { ApiEnv } from './route.ts';

/**
 * API keys on /api/*: reads need a read (or admin) key, changes an admin key; the key's project
 * scopes everything the request sees. With no key stored at all, the API is open as `default`.
 */
export function keyAuth(keyring: Keyring): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const reading = c.req.method === 'GET' || c.req.method === 'HEAD';
    const auth = await keyring.authenticate(c.req.header('authorization'), reading ? ['read'] : ['admin']);
    if (!auth.ok) {
      if (auth.status === 401) c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: auth.message }, auth.status);
    }
    c.set('project', auth.project);
    await next();
    return undefined;
  };
}
