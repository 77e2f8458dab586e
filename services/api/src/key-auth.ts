import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { KEY_PREFIX_CHARS, bearerToken, type AuthResult, type Keyring, type Role, type Sessions, type Throttle } from '../../../shared/kit/access/index.ts';
import type { AddressMatcher } from '../../../shared/runtime/http/index.ts';
import { clientAddress } from './client.ts';
import type { ApiEnv } from './route.ts';

/** The dashboard's login cookie: a session token (never the key), HttpOnly and SameSite=Strict. */
export const SESSION_COOKIE = 'tracecheck_session';
/** The cookie of earlier versions, which held the key itself: ignored, and cleared at sign-in and sign-out. */
export const LEGACY_KEY_COOKIE = 'tracecheck_key';

/** What the API needs to decide who is asking. */
export interface ApiAccess {
  keyring: Keyring;
  sessions: Sessions;
  /** Failed authentications per client address, and per key prefix. */
  byAddress: Throttle;
  byPrefix: Throttle;
  trustedProxies: AddressMatcher;
}

export type RequestAuth = (AuthResult & { fromCookie: boolean }) | { ok: false; status: 429; message: string; retryAfterS: number; fromCookie: boolean };

const isReading = (method: string): boolean => method === 'GET' || method === 'HEAD';

/**
 * A request that changes something for a signed-in browser must come from our own pages: when the
 * browser says where it comes from (Sec-Fetch-Site, Origin), it must be this origin. Requests
 * without either header are not from a browser that could carry someone else's cookie.
 */
export function originProblem(c: Context<ApiEnv>): string | null {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'cross-site request refused';
  const origin = c.req.header('origin');
  if (origin === undefined) return null;
  const host = URL.canParse(origin) ? new URL(origin).host : null;
  if (host === null || host !== c.req.header('host')) return 'cross-site request refused';
  return null;
}

/**
 * A change carried by the cookie must also be JSON (a cross-site form cannot send it without a
 * CORS preflight we never grant). SameSite=Strict already keeps the cookie off cross-site requests.
 */
function crossSiteProblem(c: Context<ApiEnv>): string | null {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) return 'a change from the dashboard must send JSON';
  return originProblem(c);
}

function throttled(ms: number, fromCookie: boolean): RequestAuth {
  const retryAfterS = Math.ceil(ms / 1000);
  return { ok: false, status: 429, message: `too many failed sign-ins: try again in ${retryAfterS} s`, retryAfterS, fromCookie };
}

/**
 * Looks the presented credential up first: a valid one is never refused for anyone else's
 * failures (one address can be a whole NAT, a proxy or a load balancer; a prefix is shared by
 * guesses). Only a failure is throttled: past the failures allowed for its address or its key
 * prefix it is answered 429 + Retry-After instead of 401, and counted while it is not.
 */
export async function throttledCheck(access: ApiAccess, c: Context<ApiEnv>, token: string, fromCookie: boolean, check: () => Promise<AuthResult>): Promise<RequestAuth> {
  const auth = await check();
  if (auth.ok || auth.status !== 401) return { ...auth, fromCookie };
  const address = `addr:${clientAddress(c, access.trustedProxies)}`;
  const prefix = `key:${token.slice(0, KEY_PREFIX_CHARS)}`;
  const wait = Math.max(access.byAddress.retryAfterMs(address), access.byPrefix.retryAfterMs(prefix));
  if (wait > 0) return throttled(wait, fromCookie);
  access.byAddress.failed(address);
  access.byPrefix.failed(prefix);
  return { ...auth, fromCookie };
}

/** Who is asking: a bearer key, else the dashboard's session cookie; with no key stored at all, everyone as `default`. */
export async function authenticateRequest(access: ApiAccess, c: Context<ApiEnv>, allowed?: readonly Role[]): Promise<RequestAuth> {
  const reading = isReading(c.req.method);
  const roles = allowed ?? (reading ? ['read'] : ['admin']);
  const header = c.req.header('authorization');
  if (header !== undefined) return throttledCheck(access, c, bearerToken(header) ?? header, false, () => access.keyring.authenticate(header, roles));
  const open = await access.keyring.authenticate(undefined, roles);
  const cookie = getCookie(c, SESSION_COOKIE);
  if (open.ok || !cookie) return { ...open, fromCookie: false };
  const auth = await throttledCheck(access, c, cookie, true, () => access.sessions.authenticate(cookie, roles));
  if (auth.ok && !reading) {
    const problem = crossSiteProblem(c);
    if (problem) return { ok: false, status: 403, message: problem, fromCookie: true };
  }
  return auth;
}

function refusal(c: Context<ApiEnv>, auth: Extract<RequestAuth, { ok: false }>): Response {
  if (auth.status === 401) c.header('WWW-Authenticate', 'Bearer');
  if (auth.status === 429) c.header('Retry-After', String(auth.retryAfterS));
  return c.json({ error: auth.message }, auth.status);
}

/**
 * API keys on /api/*: reads need a read (or admin) key, changes an admin key; the key's project
 * scopes everything the request sees. The key comes as `Authorization: Bearer`, or as the
 * dashboard's session cookie (changes then only as same-origin JSON). With no key stored at all,
 * the API is open as `default`.
 */
export function keyAuth(access: ApiAccess): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const auth = await authenticateRequest(access, c);
    if (!auth.ok) return refusal(c, auth);
    c.set('project', auth.project);
    c.set('role', auth.role);
    // Whose data this is: the CLI checks it against its --project when it goes through the API.
    c.header('X-Tracecheck-Project', auth.project);
    if (auth.keyId !== undefined) c.set('keyId', auth.keyId);
    await next();
    return undefined;
  };
}
