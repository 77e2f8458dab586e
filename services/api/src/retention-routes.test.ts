import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { RETENTION_DOC_ID, RETENTION_DOC_KIND } from '../../../shared/kit/retention/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const app = createApp({ store, log, keyring, now: () => 1_800_000_000_000 });
let admin = '';
let read = '';
beforeAll(async () => {
  await store.start();
  admin = (await keyring.create('shop', 'admin')).key;
  read = (await keyring.create('shop', 'read')).key;
});
afterAll(() => store.shutdown());

const send = (key: string, method: string, body?: unknown) =>
  app.request('/api/v1/retention', { method, headers: { Authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });

describe('project retention routes', () => {
  it("sets, reads and removes the key's project's retention; only an admin key changes it", async () => {
    expect(await (await send(read, 'GET')).json()).toEqual({ days: null });
    expect((await send(read, 'PUT', { days: 7 })).status).toBe(403);
    expect((await send(admin, 'PUT', { days: 0 })).status).toBe(400);
    expect((await send(admin, 'PUT', { days: 2.5 })).status).toBe(400);
    const put = await send(admin, 'PUT', { days: 7 });
    expect([put.status, await put.json()]).toEqual([200, { days: 7 }]);
    expect(await (await send(read, 'GET')).json()).toEqual({ days: 7 });
    expect(await store.getDoc(RETENTION_DOC_KIND, 'shop', RETENTION_DOC_ID)).toEqual({ kind: RETENTION_DOC_KIND, project: 'shop', id: RETENTION_DOC_ID, body: { days: 7 }, updated_at_ms: 1_800_000_000_000 });
    expect((await send(read, 'DELETE')).status).toBe(403);
    expect((await send(admin, 'DELETE')).status).toBe(204);
    expect(await (await send(read, 'GET')).json()).toEqual({ days: null });
  });
});

describe('a project retention under the deployment one', () => {
  it("may only shorten TRACECHECK_RETENTION_DAYS, unless the operator allows longer", async () => {
    const keys = createKeyring({ store, log });
    const key = (await keys.create('bank', 'admin')).key;
    const put = (allowLonger: boolean, days: number) =>
      createApp({ store, log, keyring: keys, now: () => 1_800_000_000_000, retention: { days: 30, allowLonger } }).request('/api/v1/retention', {
        method: 'PUT',
        headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ days }),
      });
    const longer = await put(false, 365);
    expect([longer.status, await longer.json()]).toEqual([
      400,
      { error: 'days: this deployment keeps rows 30 days (TRACECHECK_RETENTION_DAYS); a project may only shorten that unless the operator sets TRACECHECK_RETENTION_ALLOW_LONGER=true' },
    ]);
    expect((await put(false, 30)).status).toBe(200);
    expect((await put(false, 7)).status).toBe(200);
    expect((await put(true, 365)).status).toBe(200);
  });
});
