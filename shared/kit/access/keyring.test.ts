import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createDuckDbStore } from '../../adapters/store/index.ts';
import { createKeyring } from './keyring.ts';
import { bearerToken, hashKey } from './keys.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

describe('keyring', () => {
  it('is open as the default project while no key exists, then requires a valid key of the right role', async () => {
    const keyring = createKeyring({ store, log });
    expect(await keyring.authenticate(undefined, ['read'])).toEqual({ ok: true, project: 'default', role: 'open' });

    const ingest = await keyring.create('shop', 'ingest', 'prod agents');
    const read = await keyring.create('shop', 'read');
    const admin = await keyring.create('bank', 'admin');
    expect(ingest.key).toMatch(/^tc_ingest_[A-Za-z0-9_-]{32}$/);
    expect(ingest.record).toMatchObject({ project: 'shop', role: 'ingest', name: 'prod agents', id: hashKey(ingest.key).slice(0, 12) });

    expect(await keyring.authenticate(undefined, ['read'])).toEqual({ ok: false, status: 401, message: 'an API key is required: Authorization: Bearer <key>' });
    expect(await keyring.authenticate('Bearer tc_read_forged', ['read'])).toMatchObject({ ok: false, status: 401 });
    expect(await keyring.authenticate(`Bearer ${read.key}`, ['read'])).toEqual({ ok: true, project: 'shop', role: 'read', keyId: read.record.id });
    expect(await keyring.authenticate(`bearer  ${ingest.key} `, ['ingest'])).toEqual({ ok: true, project: 'shop', role: 'ingest', keyId: ingest.record.id });
    expect(await keyring.authenticate(`Bearer ${ingest.key}`, ['read'])).toEqual({ ok: false, status: 403, message: 'a ingest key cannot do this (needs read)' });
    // An admin key may do what any role may.
    expect(await keyring.authenticate(`Bearer ${admin.key}`, ['ingest'])).toEqual({ ok: true, project: 'bank', role: 'admin', keyId: admin.record.id });
  });

  it('stores hashes only, sees keys made by another process, and forgets revoked ones', async () => {
    let t = 1_000_000;
    const mine = createKeyring({ store, log, refreshMs: 60_000, now: () => t });
    const other = createKeyring({ store, log });
    await mine.authenticate(undefined, ['read']);
    const { key, record } = await other.create('shop', 'read');
    // Not in mine's cache yet: a miss re-reads the store (at most every 250 ms, so that a flood of
    // guessed keys cannot turn into a flood of store reads) before refusing.
    expect(await mine.authenticate(`Bearer ${key}`, ['read'])).toMatchObject({ ok: false, status: 401 });
    t += 1000;
    expect(await mine.authenticate(`Bearer ${key}`, ['read'])).toMatchObject({ ok: true, project: 'shop' });

    const docs = await store.listDocs({ kind: 'api_key' });
    expect(JSON.stringify(docs)).not.toContain(key);
    expect(docs.some((d) => d.id === hashKey(key))).toBe(true);

    expect(await other.revoke(record.id)).toBe(true);
    expect(await other.revoke('000000000000')).toBe(false);
    expect(await createKeyring({ store, log }).authenticate(`Bearer ${key}`, ['read'])).toMatchObject({ ok: false, status: 401 });
  });

  it('keeps deciding with the keys read last while the store is down, and fails only when it never read them', async () => {
    let down = true;
    let reads = 0;
    const flaky = new Proxy(store, {
      get: (target, prop, receiver) =>
        prop === 'listDocs'
          ? (...args: Parameters<typeof store.listDocs>) => (reads++, down ? Promise.reject(new Error('store down')) : target.listDocs(...args))
          : (Reflect.get(target, prop, receiver) as unknown),
    });
    let t = 5_000_000;
    const keyring = createKeyring({ store: flaky, log, refreshMs: 2_000, now: () => t });
    await expect(keyring.authenticate(undefined, ['ingest'])).rejects.toThrow('store down');
    down = false;
    const { key } = await keyring.create('shop', 'ingest');
    expect(await keyring.authenticate(`Bearer ${key}`, ['ingest'])).toMatchObject({ ok: true, project: 'shop', role: 'ingest' });
    down = true;
    t += 2_000;
    const before = reads;
    expect(await keyring.authenticate(`Bearer ${key}`, ['ingest'])).toMatchObject({ ok: true, project: 'shop', role: 'ingest' });
    expect(await keyring.authenticate(undefined, ['ingest'])).toMatchObject({ ok: false, status: 401 });
    // One failed read, then none until refreshMs has passed again.
    expect(reads - before).toBe(1);
    t += 2_000;
    expect(await keyring.authenticate(`Bearer ${key}`, ['ingest'])).toMatchObject({ ok: true });
    expect(reads - before).toBe(2);
  });

  it('refuses project names that could not be typed safely', async () => {
    await expect(createKeyring({ store, log }).create("x' OR 1=1", 'read')).rejects.toThrow(/project name/);
  });

  it('reads only well-formed bearer headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
