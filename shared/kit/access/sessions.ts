import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { QueryStore } from '../../adapters/store/index.ts';
import type { AuthResult, Keyring } from './keyring.ts';
import { KEY_DOC_PROJECT, hashKey, type Role } from './keys.ts';

// Dashboard sign-ins as server-side sessions: the cookie holds a random token, the store its
// SHA-256 only (a copy of the store or a log line gives no way in), and a session is as good as
// the key it was opened with: revoking the key ends its sessions, and signing out deletes the
// session itself, so a copied cookie stops working at logout.

export const SESSION_DOC_KIND = 'login_session';
const SESSION_TTL_MS = 7 * 86_400_000;
const TOKEN = /^tcs_[A-Za-z0-9_-]{43}$/;
/** A session checked this recently is trusted without reading the store (sessions deleted by another process count after this). */
const RECHECK_MS = 2_000;
const MAX_CACHED = 10_000;
/** Expired sessions never presented again are deleted at a sign-in, at most this often. */
const SWEEP_MS = 3_600_000;
/** Live sessions one key may hold; a sign-in past it ends that key's oldest, so a leaked key cannot pile up sessions. */
const MAX_SESSIONS_PER_KEY = 20;

const SessionRecordSchema = z.object({
  key_id: z.string(),
  project: z.string(),
  role: z.enum(['ingest', 'read', 'admin']),
  created_at_ms: z.number(),
  expires_at_ms: z.number(),
});
type SessionRecord = z.infer<typeof SessionRecordSchema>;

export interface Sessions {
  /** A new session for a key that was just checked; the token goes into the cookie and is never stored. */
  open(key: { keyId: string; project: string; role: Role }): Promise<{ token: string; maxAgeS: number }>;
  /** The session's project and role, if it is live, its key is not revoked, and its role is one of `allowed` (admin may anything). */
  authenticate(token: string, allowed: readonly Role[]): Promise<AuthResult>;
  /** Ends a session (sign-out); unknown tokens are ignored. */
  close(token: string): Promise<void>;
}

export function createSessions(options: { store: QueryStore; keyring: Keyring; now?: () => number; ttlMs?: number; maxPerKey?: number }): Sessions {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? SESSION_TTL_MS;
  const checked = new Map<string, { record: SessionRecord; at: number }>();
  const refuse = (message: string): AuthResult => ({ ok: false, status: 401, message });
  let sweptAt = Number.NEGATIVE_INFINITY;

  async function sweep(t: number): Promise<void> {
    if (t - sweptAt < SWEEP_MS) return;
    sweptAt = t;
    for (const doc of await options.store.listDocs({ kind: SESSION_DOC_KIND, project: KEY_DOC_PROJECT, limit: 10_000 })) {
      const parsed = SessionRecordSchema.safeParse(doc.body);
      if (!parsed.success || parsed.data.expires_at_ms <= t) await options.store.deleteDoc(SESSION_DOC_KIND, KEY_DOC_PROJECT, doc.id);
    }
  }

  async function record(hash: string): Promise<SessionRecord | null> {
    const cached = checked.get(hash);
    if (cached && now() - cached.at < RECHECK_MS) return cached.record;
    const doc = await options.store.getDoc(SESSION_DOC_KIND, KEY_DOC_PROJECT, hash);
    const parsed = doc ? SessionRecordSchema.safeParse(doc.body) : null;
    if (!parsed?.success) {
      checked.delete(hash);
      return null;
    }
    if (checked.size >= MAX_CACHED) checked.delete(checked.keys().next().value!);
    checked.set(hash, { record: parsed.data, at: now() });
    return parsed.data;
  }

  async function endOldestOf(keyId: string, maxPerKey: number): Promise<void> {
    const mine: { id: string; created: number }[] = [];
    for (const doc of await options.store.listDocs({ kind: SESSION_DOC_KIND, project: KEY_DOC_PROJECT, limit: 10_000 })) {
      const parsed = SessionRecordSchema.safeParse(doc.body);
      if (parsed.success && parsed.data.key_id === keyId) mine.push({ id: doc.id, created: parsed.data.created_at_ms });
    }
    mine.sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
    for (const { id } of mine.slice(0, Math.max(0, mine.length - maxPerKey + 1))) {
      checked.delete(id);
      await options.store.deleteDoc(SESSION_DOC_KIND, KEY_DOC_PROJECT, id);
    }
  }

  return {
    async open(key) {
      const token = `tcs_${randomBytes(32).toString('base64url')}`;
      const t = now();
      await sweep(t);
      await endOldestOf(key.keyId, options.maxPerKey ?? MAX_SESSIONS_PER_KEY);
      const body: SessionRecord = { key_id: key.keyId, project: key.project, role: key.role, created_at_ms: t, expires_at_ms: t + ttlMs };
      await options.store.putDoc({ kind: SESSION_DOC_KIND, project: KEY_DOC_PROJECT, id: hashKey(token), body, updated_at_ms: t });
      return { token, maxAgeS: Math.floor(ttlMs / 1000) };
    },
    async authenticate(token, allowed) {
      if (!TOKEN.test(token)) return refuse('not a session of this server: sign in again');
      const hash = hashKey(token);
      const r = await record(hash);
      if (!r) return refuse('session ended: sign in again');
      if (now() >= r.expires_at_ms) {
        checked.delete(hash);
        await options.store.deleteDoc(SESSION_DOC_KIND, KEY_DOC_PROJECT, hash);
        return refuse('session expired: sign in again');
      }
      if (!(await options.keyring.isLive(r.key_id))) return refuse('the key of this session was revoked: sign in again');
      if (r.role !== 'admin' && !allowed.includes(r.role)) return { ok: false, status: 403, message: `a ${r.role} key cannot do this (needs ${allowed.join(' or ')})` };
      return { ok: true, project: r.project, role: r.role, keyId: r.key_id };
    },
    async close(token) {
      if (!TOKEN.test(token)) return;
      const hash = hashKey(token);
      checked.delete(hash);
      await options.store.deleteDoc(SESSION_DOC_KIND, KEY_DOC_PROJECT, hash);
    },
  };
}
