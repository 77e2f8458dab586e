import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApiServer } from '../../../services/api/src/index.ts';

// The throttle keys on the socket's peer address as @hono/node-server hands it over, and ignores
// X-Forwarded-For from a peer that is not a trusted proxy (here: none is).

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring });
let read = '';
beforeAll(async () => {
  await store.start();
  read = (await keyring.create('shop', 'read')).key;
  await api.start();
});
afterAll(async () => {
  await api.shutdown();
  await store.shutdown();
});

describe('failed sign-ins over a real socket', () => {
  it('answers a failure 429 with Retry-After after 30 failures from one address, whatever X-Forwarded-For claims; never a valid key', async () => {
    const get = (key: string, i: number) => fetch(`${api.url()}/api/v1/units`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': `198.51.100.${i}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await get(`tc_read_${String(i).padStart(2, '0')}guess${'g'.repeat(25)}`, i)).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect((await get(read, 98)).status).toBe(200);
    const blocked = await get(`tc_read_99guess${'g'.repeat(25)}`, 99);
    expect(blocked.status).toBe(429);
    // The rest of the minute that began at the first failure (the 30 requests take under a few seconds).
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});
