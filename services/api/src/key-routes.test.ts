import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

// POST /api/v1/keys: what `tracecheck keys create` sends while `tracecheck up` holds the store.
// The open server (no key yet) makes the first key of any project; after that an admin key makes
// keys of its own project only.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const app = createApp({ store, log, keyring });

const post = (body: unknown, key?: string) =>
  app.request('/api/v1/keys', { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });

beforeAll(() => store.start());
afterAll(() => store.shutdown());

describe('POST /api/v1/keys', () => {
  let shopAdmin = '';

  it('makes the first key of any project while the API is open, and says whose data a request sees', async () => {
    const res = await post({ project: 'shop', role: 'admin', name: 'ops' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-tracecheck-project')).toBe('default');
    const body = (await res.json()) as { key: string; id: string; role: string; project: string; name: string };
    expect([body.role, body.project, body.name, /^tc_admin_/.test(body.key), /^[0-9a-f]{12}$/.test(body.id)]).toEqual(['admin', 'shop', 'ops', true, true]);
    shopAdmin = body.key;
    expect((await keyring.authenticate(`Bearer ${shopAdmin}`, ['admin'])).ok).toBe(true);
  });

  it("then takes an admin key, and makes keys of that key's project only", async () => {
    expect((await post({ project: 'bank', role: 'admin' })).status).toBe(401);
    const other = await post({ project: 'bank', role: 'admin' }, shopAdmin);
    expect([other.status, await other.json()]).toEqual([403, { error: 'an admin key of project "shop" creates keys of "shop" only' }]);
    const read = await post({ role: 'read' }, shopAdmin);
    expect(read.status).toBe(201);
    expect(read.headers.get('x-tracecheck-project')).toBe('shop');
    const readKey = ((await read.json()) as { key: string; project: string; name: string }).key;
    expect((await post({ role: 'read' }, readKey)).status).toBe(403);
    const listed = (await (await app.request('/api/v1/keys', { headers: { authorization: `Bearer ${shopAdmin}` } })).json()) as { keys: { role: string; project: string; name: string }[] };
    expect(listed.keys.map((k) => [k.role, k.project, k.name])).toEqual([['admin', 'shop', 'ops'], ['read', 'shop', '']]);
  });

  it('refuses a bad project name or role with the rule', async () => {
    const res = await post({ project: '../x', role: 'owner' }, shopAdmin);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { issues: string[] }).issues).toEqual([
      "body.project: 1–100 letters, digits, '.', '_' or '-', starting with a letter or digit",
      'body.role: Invalid option: expected one of "ingest"|"read"|"admin"',
    ]);
  });
});
