import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring, hashKey } from '../../../shared/kit/access/index.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createMetrics } from '../../../shared/kit/metrics/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

// Issue 23's login findings, each as the attack: the cookie was the raw key and logout did not
// revoke it; cross-site posts signed in and out; no Secure behind a TLS proxy; no throttling;
// `next=/<TAB>/evil.example/` passed; a tab in `next` was a 500; /metrics was open.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
let t = 1_000_000;
const app = createApp({
  store, log, keyring, now: () => t, metrics: createMetrics(),
  security: {
    trustedProxies: createAddressMatcher(parseAddressList('10.0.0.1').list),
    metricsToken: 'scrape-token-0123456789',
    throttle: { byAddress: { maxFailures: 5, windowMs: 60_000 }, byPrefix: { maxFailures: 3, windowMs: 60_000 } },
  },
});

/** The socket a request came from, as @hono/node-server hands it to the app. */
const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
let peer = 1;
/** A fresh client address per test, so that one test's failures do not throttle the next. */
const nextPeer = () => from(`192.0.2.${peer++}`);

let shopRead = '';
let shopAdmin = '';
beforeAll(async () => {
  await store.start();
  shopRead = (await keyring.create('shop', 'read')).key;
  shopAdmin = (await keyring.create('shop', 'admin')).key;
});
afterAll(() => store.shutdown());

type Env = ReturnType<typeof from>;
const login = (key: string, env: Env, headers: Record<string, string> = {}, next = '/') =>
  app.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', Host: 'dash.example', ...headers }, body: `key=${encodeURIComponent(key)}&next=${encodeURIComponent(next)}` }, env);
const sessionOf = (res: Response): string => /tracecheck_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
const page = (token: string, env: Env) => app.request('/checks', { headers: { Cookie: `tracecheck_session=${token}` } }, env);

describe('dashboard sign-in', () => {
  it('keeps a random session token in the cookie, never the key, and stores only its hash', async () => {
    const env = nextPeer();
    const res = await login(shopRead, env);
    expect(res.status).toBe(303);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).not.toContain(shopRead);
    expect(cookie).toMatch(/^tracecheck_session=tcs_[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict/);
    const token = sessionOf(res);
    const docs = await store.listDocs({ kind: 'login_session' });
    expect(docs.map((d) => d.id)).toContain(hashKey(token));
    expect(JSON.stringify(docs)).not.toContain(token);
    expect((await page(token, env)).status).toBe(200);
  });

  it('revokes the session at logout: a copied cookie no longer opens a page', async () => {
    const env = nextPeer();
    const token = sessionOf(await login(shopRead, env));
    const out = await app.request('/logout', { method: 'POST', headers: { Cookie: `tracecheck_session=${token}`, Host: 'dash.example', Origin: 'http://dash.example' } }, env);
    expect([out.status, out.headers.get('location')]).toEqual([303, '/login']);
    const after = await page(token, env);
    expect([after.status, after.headers.get('location')]).toEqual([302, '/login?next=%2Fchecks']);
  });

  it('ends the sessions of a key revoked through the API while the server runs, and the key with them', async () => {
    const env = nextPeer();
    const doomed = await keyring.create('shop', 'read', 'leaked');
    const token = sessionOf(await login(doomed.key, env));
    expect((await page(token, env)).status).toBe(200);
    const other = await keyring.create('bank', 'admin');
    const revoke = (key: string) => app.request(`/api/v1/keys/${doomed.record.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } }, env);
    // Another project's admin key cannot see or revoke it.
    expect((await revoke(other.key)).status).toBe(404);
    expect((await revoke(shopAdmin)).status).toBe(204);
    expect((await page(token, env)).status).toBe(302);
    expect((await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${doomed.key}` } }, env)).status).toBe(401);
    const listed = (await (await app.request('/api/v1/keys', { headers: { Authorization: `Bearer ${shopAdmin}` } }, env)).json()) as { keys: Array<{ id: string }> };
    expect(listed.keys.map((k) => k.id)).not.toContain(doomed.record.id);
    expect((await app.request('/api/v1/keys', { headers: { Authorization: `Bearer ${shopRead}` } }, env)).status).toBe(403);
  });

  it('refuses cross-site sign-in and sign-out posts', async () => {
    const env = nextPeer();
    expect((await login(shopRead, env, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await login(shopRead, env, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await login(shopRead, env, { Origin: 'http://dash.example', 'Sec-Fetch-Site': 'same-origin' })).status).toBe(303);
    const token = sessionOf(await login(shopRead, env));
    const out = await app.request('/logout', { method: 'POST', headers: { Cookie: `tracecheck_session=${token}`, Host: 'dash.example', Origin: 'https://evil.example' } }, env);
    expect(out.status).toBe(403);
    expect((await page(token, env)).status).toBe(200);
  });

  it('marks the cookie Secure behind a trusted proxy that says https, and only then', async () => {
    const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '198.51.100.7' };
    expect((await login(shopRead, from('10.0.0.1'), forwarded)).headers.get('set-cookie')).toContain('; Secure');
    expect((await login(shopRead, from('192.0.2.200'), forwarded)).headers.get('set-cookie')).not.toContain('Secure');
    expect((await login(shopRead, from('10.0.0.1'))).headers.get('set-cookie')).not.toContain('Secure');
  });

  it('throttles failed sign-ins per client address with 429 and Retry-After, never a right key', async () => {
    const env = nextPeer();
    for (let i = 0; i < 5; i++) expect((await login(`tc_read_guess${i}${'x'.repeat(30)}`, env)).status).toBe(401);
    const blocked = await login(`tc_read_guess9${'x'.repeat(30)}`, env);
    expect([blocked.status, blocked.headers.get('retry-after')]).toEqual([429, '60']);
    // The address may be a NAT or a proxy shared with people who hold valid keys.
    expect((await login(shopRead, env)).status).toBe(303);
    expect((await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${shopRead}` } }, env)).status).toBe(200);
    // Another address is not affected; the window passes.
    expect((await login(`tc_read_other${'x'.repeat(30)}`, nextPeer())).status).toBe(401);
    t += 60_000;
    expect((await login(`tc_read_guess9${'x'.repeat(30)}`, env)).status).toBe(401);
  });

  it("never refuses a valid key for wrong keys that share its first 16 characters", async () => {
    const prefix = shopRead.slice(0, 16);
    for (let i = 0; i < 4; i++) await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${prefix}${i}${'q'.repeat(24)}` } }, nextPeer());
    const guess = await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${prefix}9${'q'.repeat(24)}` } }, nextPeer());
    expect(guess.status).toBe(429);
    expect((await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${shopRead}` } }, nextPeer())).status).toBe(200);
    t += 60_000;
  });

  it('throttles guesses at one key prefix from many addresses', async () => {
    const prefix = 'tc_admin_AAAAAAA';
    for (let i = 0; i < 3; i++) expect((await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${prefix}${i}${'z'.repeat(24)}` } }, nextPeer())).status).toBe(401);
    const res = await app.request('/api/v1/units', { headers: { Authorization: `Bearer ${prefix}9${'z'.repeat(24)}` } }, nextPeer());
    expect([res.status, res.headers.get('retry-after'), await res.json()]).toEqual([429, '60', { error: 'too many failed sign-ins: try again in 60 s' }]);
    t += 60_000;
  });

  it('redirects after sign-in only to a path of this origin, as a browser parses it', async () => {
    const env = nextPeer();
    const where = async (next: string) => {
      const res = await login(shopRead, env, {}, next);
      return [res.status, res.headers.get('location')];
    };
    expect(await where('/checks?x=1#top')).toEqual([303, '/checks?x=1#top']);
    expect(await where('//evil.example/')).toEqual([303, '/']);
    expect(await where('/\\evil.example/')).toEqual([303, '/']);
    expect(await where('https://evil.example/')).toEqual([303, '/']);
    // Dot segments that normalize to `//host` or `/\host`.
    for (const next of ['/.\\/evil.example', '/./\\evil.example', '/.//evil.example', '/a/../\\evil.example', '/%2e/%2fevil.example']) {
      const [status, location] = await where(next);
      expect([next, status, location === '/' || !/^\/[/\\]/.test(String(location))]).toEqual([next, 303, true]);
    }
    expect(await where('/%09/evil.example/')).toEqual([303, '/%09/evil.example/']);
    // Browsers strip tabs and newlines, which made /<TAB>/evil.example/ a way out (and a 500).
    expect(await where('/\t/evil.example/')).toEqual([400, null]);
    expect(await where('/\n/evil.example/')).toEqual([400, null]);
    expect((await app.request('/login?next=%2F%09%2Fevil.example%2F', {}, env)).status).toBe(400);
    expect((await app.request('/login?next=%2F%0A', {}, env)).status).toBe(400);
  });
});

describe('/metrics once keys exist', () => {
  it('needs the operator token, which no project key replaces', async () => {
    const get = (authorization?: string) => app.request('/metrics', authorization ? { headers: { authorization } } : {}, nextPeer());
    expect((await get()).status).toBe(401);
    expect((await get(`Bearer ${shopAdmin}`)).status).toBe(401);
    const ok = await get('Bearer scrape-token-0123456789');
    expect([ok.status, ok.headers.get('content-type')]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
  });
});
