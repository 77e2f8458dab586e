import type { Context, Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { LEGACY_KEY_COOKIE, SESSION_COOKIE, authenticateRequest, originProblem, throttledCheck, type ApiAccess } from '../key-auth.ts';
import { cameOverHttps } from '../client.ts';
import type { ApiEnv } from '../route.ts';
import { h } from './html.ts';
import { layout, problemPage, sendPage } from './page-deps.ts';

// Pages read with the same keys as the API: a read (or admin) key typed once into the login form
// opens a server-side session whose random token is kept in an HttpOnly, SameSite=Strict cookie
// (Secure over TLS, also behind a trusted proxy that says so), so the pages are one project's only.
// Sign-out ends the session. With no key stored at all, everything is open as `default` and there
// is nothing to sign in to.

const BASE = 'http://tracecheck.invalid/';
const BASE_ORIGIN = new URL(BASE).origin;

/**
 * Where to go after signing in: only a path of this origin, as a browser would read it (WHATWG
 * URL parsing: `/\evil`, `//evil` and `/<TAB>/evil` all name another host). Anything else goes to
 * `/`; control characters, which browsers strip silently, make the request malformed (null).
 */
function safeNext(next: unknown): string | null {
  if (typeof next !== 'string' || next === '') return '/';
  if ([...next].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return null;
  if (!next.startsWith('/')) return '/';
  const url = URL.canParse(next, BASE) ? new URL(next, BASE) : null;
  if (url === null || url.origin !== BASE_ORIGIN) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can normalize to a path that starts with `//` (`/.\/evil.example`), which a
  // browser reads as another host: the result must stay on this origin when read once more.
  const again = URL.canParse(path, BASE) ? new URL(path, BASE) : null;
  return again !== null && again.origin === BASE_ORIGIN && !/^\/[/\\]/.test(path) ? path : '/';
}

function loginPage(c: Context<ApiEnv>, next: string, error: string | null, status: 200 | 400 | 401 | 403 | 429 = 200): Response {
  c.set('project', '');
  const body = h`<div class="login card"><h1>Sign in</h1>
<p class="sub">Paste an API key of your project (read or admin), as created by <code>tracecheck keys create</code>. You stay signed in for 7 days or until you sign out; the key itself is not kept in the browser.</p>
${error ? h`<div class="msg err">${error}</div>` : null}
<form method="post" action="/login"><input type="hidden" name="next" value="${next}">
<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></div>`;
  return sendPage(c, layout(c, { title: 'Sign in', section: 'login', body }), status);
}

const BAD_NEXT = 'the page to return to (next) must be a path without control characters';

/** Pages need a read key when keys exist: from the session cookie (or a bearer header); else the login page. */
export function pageAuth(access: ApiAccess): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const auth = await authenticateRequest(access, c, ['read']);
    if (!auth.ok) {
      if (auth.status === 401) return c.redirect(`/login?next=${encodeURIComponent(c.req.path + new URL(c.req.url).search)}`, 302);
      if (auth.status === 429) {
        c.header('Retry-After', String(auth.retryAfterS));
        return loginPage(c, '/', auth.message, 429);
      }
      return problemPage(c, 403, 'Not allowed', auth.message);
    }
    c.set('project', auth.project);
    c.set('role', auth.role);
    c.set('signedIn', auth.fromCookie);
    await next();
    return undefined;
  };
}

export function loginRoutes(app: Hono<ApiEnv>, access: ApiAccess): void {
  app.get('/login', (c) => {
    const next = safeNext(c.req.query('next'));
    return next === null ? loginPage(c, '/', BAD_NEXT, 400) : loginPage(c, next, null);
  });
  app.post('/login', async (c) => {
    const crossSite = originProblem(c);
    if (crossSite) return loginPage(c, '/', crossSite, 403);
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    if (next === null) return loginPage(c, '/', BAD_NEXT, 400);
    const key = typeof form.key === 'string' ? form.key.trim() : '';
    const auth = await throttledCheck(access, c, key, false, () => access.keyring.authenticate(`Bearer ${key}`, ['read']));
    if (!auth.ok) {
      if (auth.status === 429) c.header('Retry-After', String(auth.retryAfterS));
      return loginPage(c, next, auth.message, auth.status);
    }
    if (auth.role === 'open' || auth.keyId === undefined) return loginPage(c, next, 'No keys exist: the dashboard is open.', 401);
    const session = await access.sessions.open({ keyId: auth.keyId, project: auth.project, role: auth.role });
    if (getCookie(c, LEGACY_KEY_COOKIE) !== undefined) deleteCookie(c, LEGACY_KEY_COOKIE, { path: '/' });
    setCookie(c, SESSION_COOKIE, session.token, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: session.maxAgeS, secure: cameOverHttps(c, access.trustedProxies) });
    return c.redirect(next, 303);
  });
  app.post('/logout', async (c) => {
    const crossSite = originProblem(c);
    if (crossSite) return problemPage(c, 403, 'Not allowed', crossSite);
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await access.sessions.close(token);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    if (getCookie(c, LEGACY_KEY_COOKIE) !== undefined) deleteCookie(c, LEGACY_KEY_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });
}
