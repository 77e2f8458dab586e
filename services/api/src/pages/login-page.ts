import type { Context, Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { Keyring } from '../../../../shared/access/index.ts';
import { KEY_COOKIE, authenticateRequest } from '../key-auth.ts';
import type { ApiEnv } from '../route.ts';
import { h } from './html.ts';
import { layout, problemPage, sendPage } from './page-deps.ts';

// Pages read with the same keys as the API: a read (or admin) key typed once into the login form
// and kept in an HttpOnly, SameSite=Strict cookie, so the pages are one project's only. With no
// key stored at all, everything is open as `default` and there is nothing to sign in to.

const COOKIE_MAX_AGE_S = 7 * 86_400;

/** Only a path of ours: `//evil.example` or `https://…` would send the visitor elsewhere. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}

function loginPage(c: Context<ApiEnv>, next: string, error: string | null, status: 200 | 401 = 200): Response {
  c.set('project', '');
  const body = h`<div class="login card"><h1>Sign in</h1>
<p class="sub">Paste an API key of your project (read or admin), as created by <code>tracecheck keys create</code>. It is kept in an HttpOnly cookie for 7 days.</p>
${error ? h`<div class="msg err">${error}</div>` : null}
<form method="post" action="/login"><input type="hidden" name="next" value="${next}">
<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></div>`;
  return sendPage(c, layout(c, { title: 'Sign in', section: 'login', body }), status);
}

/** Pages need a read key when keys exist: from the cookie (or a bearer header); else the login page. */
export function pageAuth(keyring: Keyring): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const auth = await authenticateRequest(keyring, c);
    if (!auth.ok) {
      if (auth.status === 401) return c.redirect(`/login?next=${encodeURIComponent(c.req.path + (new URL(c.req.url).search))}`, 302);
      return problemPage(c, 403, 'Not allowed', auth.message);
    }
    c.set('project', auth.project);
    c.set('signedIn', auth.fromCookie);
    await next();
    return undefined;
  };
}

export function loginRoutes(app: Hono<ApiEnv>, keyring: Keyring): void {
  app.get('/login', (c) => loginPage(c, safeNext(c.req.query('next')), null));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const key = typeof form.key === 'string' ? form.key.trim() : '';
    const auth = await keyring.authenticate(`Bearer ${key}`, ['read']);
    if (!auth.ok || auth.role === 'open') return loginPage(c, next, auth.ok ? 'No keys exist: the dashboard is open.' : auth.message, 401);
    setCookie(c, KEY_COOKIE, key, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: COOKIE_MAX_AGE_S, secure: new URL(c.req.url).protocol === 'https:' });
    return c.redirect(next, 303);
  });
  app.post('/logout', (c) => {
    deleteCookie(c, KEY_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });
}
