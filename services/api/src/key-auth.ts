import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AuthResult, Keyring } from '../../../shared/access/index.ts';
import type { ApiEnv } from './route.ts';

/** The dashboard's login cookie: the key itself, HttpOnly and SameSite=Strict. */
export const KEY_COOKIE = 'tracecheck_key';

interface Credential {
  authorization: string | undefined;
  fromCookie: boolean;
}

/** The `Authorization` header, else the dashboard's cookie. */
function credentialOf(c: Context<ApiEnv>): Credential {
  const header = c.req.header('authorization');
  if (header !== undefined) return { authorization: header, fromCookie: false };
  const cookie = getCookie(c, KEY_COOKIE);
  return cookie ? { authorization: `Bearer ${cookie}`, fromCookie: true } : { authorization: undefined, fromCookie: false };
}

const isReading = (method: string): boolean => method === 'GET' || method === 'HEAD';

/**
 * A change carried by the cookie must come from our own pages: a JSON body (a cross-site form
 * cannot send one without a CORS preflight we never grant) and, when the browser says where it
 * comes from, the same origin. SameSite=Strict already keeps the cookie off cross-site requests.
 */
export function crossSiteProblem(c: Context<ApiEnv>): string | null {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) return 'a change from the dashboard must send JSON';
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'cross-site request refused';
  const origin = c.req.header('origin');
  if (origin === undefined) return null;
  const host = URL.canParse(origin) ? new URL(origin).host : null;
  if (host === null || host !== c.req.header('host')) return 'cross-site request refused';
  return null;
}

/** Who is asking: the key's project when it may do what the method needs; the cookie counts too. */
export async function authenticateRequest(keyring: Keyring, c: Context<ApiEnv>): Promise<AuthResult & { fromCookie: boolean }> {
  const cred = credentialOf(c);
  const reading = isReading(c.req.method);
  const auth = await keyring.authenticate(cred.authorization, reading ? ['read'] : ['admin']);
  if (auth.ok && cred.fromCookie && !reading) {
    const problem = crossSiteProblem(c);
    if (problem) return { ok: false, status: 403, message: problem, fromCookie: true };
  }
  return { ...auth, fromCookie: cred.fromCookie };
}

/**
 * API keys on /api/*: reads need a read (or admin) key, changes an admin key; the key's project
 * scopes everything the request sees. The key comes as `Authorization: Bearer`, or from the
 * dashboard's login cookie (changes then only as same-origin JSON). With no key stored at all,
 * the API is open as `default`.
 */
export function keyAuth(keyring: Keyring): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const auth = await authenticateRequest(keyring, c);
    if (!auth.ok) {
      if (auth.status === 401) c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: auth.message }, auth.status);
    }
    c.set('project', auth.project);
    await next();
    return undefined;
  };
}
