import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createDuckDbStore } from '../../adapters/store/index.ts';
import { createKeyring } from './keyring.ts';
import { hashKey } from './keys.ts';
import { SESSION_DOC_KIND, createSessions } from './sessions.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

describe('login sessions', () => {
  it('live as long as their key and their time, and no longer', async () => {
    let t = 10_000_000;
    const keyring = createKeyring({ store, log, now: () => t });
    const sessions = createSessions({ store, keyring, now: () => t, ttlMs: 60_000 });
    const { record } = await keyring.create('shop', 'read');
    const { token, maxAgeS } = await sessions.open({ keyId: record.id, project: 'shop', role: 'read' });
    expect(maxAgeS).toBe(60);
    expect(await sessions.authenticate(token, ['read'])).toEqual({ ok: true, project: 'shop', role: 'read', keyId: record.id });
    expect(await sessions.authenticate(token, ['admin'])).toEqual({ ok: false, status: 403, message: 'a read key cannot do this (needs admin)' });
    expect(await sessions.authenticate('tcs_forged', ['read'])).toEqual({ ok: false, status: 401, message: 'not a session of this server: sign in again' });
    t += 60_000;
    expect(await sessions.authenticate(token, ['read'])).toEqual({ ok: false, status: 401, message: 'session expired: sign in again' });
    expect(await store.getDoc(SESSION_DOC_KIND, '*', hashKey(token))).toBeNull();

    const second = await sessions.open({ keyId: record.id, project: 'shop', role: 'read' });
    await keyring.revoke(record.id);
    expect(await sessions.authenticate(second.token, ['read'])).toEqual({ ok: false, status: 401, message: 'the key of this session was revoked: sign in again' });
  });

  it('deletes expired sessions nobody presents again at a later sign-in', async () => {
    let t = 50_000_000;
    const keyring = createKeyring({ store, log, now: () => t });
    const sessions = createSessions({ store, keyring, now: () => t, ttlMs: 1_000 });
    const { record } = await keyring.create('bank', 'read');
    for (let i = 0; i < 3; i++) await sessions.open({ keyId: record.id, project: 'bank', role: 'read' });
    t += 3_600_000;
    await sessions.open({ keyId: record.id, project: 'bank', role: 'read' });
    expect((await store.listDocs({ kind: SESSION_DOC_KIND })).length).toBe(1);
  });

  it('keeps at most maxPerKey live sessions per key: a sign-in past it ends that key’s oldest', async () => {
    let t = 90_000_000;
    const keyring = createKeyring({ store, log, now: () => t });
    const sessions = createSessions({ store, keyring, now: () => t, maxPerKey: 3 });
    const mine = await keyring.create('capped', 'read');
    const other = await keyring.create('capped', 'read');
    const theirs = await sessions.open({ keyId: other.record.id, project: 'capped', role: 'read' });
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      t += 1_000;
      tokens.push((await sessions.open({ keyId: mine.record.id, project: 'capped', role: 'read' })).token);
    }
    t += 5_000;
    const live = await Promise.all(tokens.map(async (token) => (await sessions.authenticate(token, ['read'])).ok));
    expect(live).toEqual([false, false, true, true, true]);
    expect((await sessions.authenticate(theirs.token, ['read'])).ok).toBe(true);
  });
});
