import type { Logger } from '../../runtime/logging/index.ts';
import type { QueryStore } from '../../adapters/store/index.ts';
import { KEY_DOC_KIND, KEY_DOC_PROJECT, KeyRecordSchema, assertProjectName, bearerToken, generateKey, hashKey, type KeyRecord, type Role } from './keys.ts';

/** `keyId`: the public id of the key that was presented (absent while no key exists). */
export type AuthResult = { ok: true; project: string; role: Role | 'open'; keyId?: string } | { ok: false; status: 401 | 403; message: string };

export interface Keyring {
  /**
   * Who sends this `Authorization` header, if one of `allowed` may. With no key stored at all,
   * everything is open as the `default` project (the embedded quick start).
   */
  authenticate(authorization: string | undefined | null, allowed: readonly Role[]): Promise<AuthResult>;
  /** Stores a new key and returns it: the only time the key itself is seen. */
  create(project: string, role: Role, name?: string): Promise<{ key: string; record: KeyRecord }>;
  list(): Promise<KeyRecord[]>;
  /** Revokes by public id; false when no key has it. */
  revoke(id: string): Promise<boolean>;
  /** The key with this public id exists (as of the last read, at most `refreshMs` old). */
  isLive(id: string): Promise<boolean>;
}

const OPEN_PROJECT = 'default';

export interface KeyringOptions {
  store: QueryStore;
  log: Logger;
  /** How long a loaded key set is trusted before it is read again (keys made by another process). Default 2 s. */
  refreshMs?: number;
  now?: () => number;
}

/** API keys over the store's documents, cached per process and re-read on a short interval. */
export function createKeyring(options: KeyringOptions): Keyring {
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 2_000;
  let cache: Map<string, KeyRecord> | null = null;
  let loadedAt = 0;
  let loading: Promise<Map<string, KeyRecord>> | null = null;

  async function load(): Promise<Map<string, KeyRecord>> {
    loading ??= (async () => {
      const docs = await options.store.listDocs({ kind: KEY_DOC_KIND, project: KEY_DOC_PROJECT, limit: 10_000 });
      const map = new Map<string, KeyRecord>();
      for (const d of docs) {
        const parsed = KeyRecordSchema.safeParse(d.body);
        if (parsed.success) map.set(parsed.data.hash, parsed.data);
        else options.log.error({ id: d.id }, 'skipping an unreadable api key record');
      }
      cache = map;
      loadedAt = now();
      return map;
    })().finally(() => {
      loading = null;
    });
    return loading;
  }

  async function keys(fresh: boolean): Promise<Map<string, KeyRecord>> {
    if (!cache || fresh || now() - loadedAt >= refreshMs) {
      const known = cache;
      try {
        return await load();
      } catch (err) {
        if (!known) throw err;
        // The store is down: keep deciding with the keys read last (a key revoked meanwhile counts
        // once the store answers again) rather than refusing every request; read again after refreshMs.
        loadedAt = now();
        options.log.warn({ err }, 'API keys could not be re-read; using the ones read last');
        return known;
      }
    }
    return cache;
  }

  return {
    async authenticate(authorization, allowed) {
      let all = await keys(false);
      if (all.size === 0) return { ok: true, project: OPEN_PROJECT, role: 'open' };
      const token = bearerToken(authorization);
      if (!token) return { ok: false, status: 401, message: 'an API key is required: Authorization: Bearer <key>' };
      const hash = hashKey(token);
      let record = all.get(hash);
      // A key made a moment ago by another process: read once more before refusing.
      if (!record && now() - loadedAt > 250) {
        all = await keys(true);
        record = all.get(hash);
      }
      if (!record) return { ok: false, status: 401, message: 'unknown or revoked API key' };
      if (record.role !== 'admin' && !allowed.includes(record.role)) {
        return { ok: false, status: 403, message: `a ${record.role} key cannot do this (needs ${allowed.join(' or ')})` };
      }
      return { ok: true, project: record.project, role: record.role, keyId: record.id };
    },
    async isLive(id) {
      for (const k of (await keys(false)).values()) if (k.id === id) return true;
      return false;
    },

    async create(project, role, name = '') {
      assertProjectName(project);
      const key = generateKey(role);
      const hash = hashKey(key);
      const record: KeyRecord = { id: hash.slice(0, 12), hash, project, role, name, created_at_ms: now() };
      await options.store.putDoc({ kind: KEY_DOC_KIND, project: KEY_DOC_PROJECT, id: hash, body: record, updated_at_ms: record.created_at_ms });
      cache = null;
      return { key, record };
    },

    async list() {
      return [...(await keys(true)).values()].sort((a, b) => a.created_at_ms - b.created_at_ms || a.id.localeCompare(b.id));
    },

    async revoke(id) {
      const found = [...(await keys(true)).values()].filter((k) => k.id === id);
      for (const k of found) await options.store.deleteDoc(KEY_DOC_KIND, KEY_DOC_PROJECT, k.hash);
      cache = null;
      return found.length > 0;
    },
  };
}
