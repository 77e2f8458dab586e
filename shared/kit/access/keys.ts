import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

// API keys: random, shown once, stored only as a SHA-256 hash. Keys carry 192 random bits, so a
// fast hash is enough (there is nothing to brute-force, unlike a password).

export const ROLES = ['ingest', 'read', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Stored per key (doc kind `api_key`, id = the hash); never the key itself. */
export const KeyRecordSchema = z.object({
  /** Short public id (the first 12 hex digits of the hash): what `keys list` shows and `keys revoke` takes. */
  id: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  project: z.string().min(1).max(200),
  role: z.enum(ROLES),
  name: z.string().max(200),
  created_at_ms: z.number(),
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

export const KEY_DOC_KIND = 'api_key';
/** Keys are looked up before the project is known, so they live in one namespace of their own. */
export const KEY_DOC_PROJECT = '*';

const PROJECT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function assertProjectName(project: string): void {
  if (!PROJECT.test(project)) throw new Error(`a project name is 1–100 letters, digits, '.', '_' or '-', starting with a letter or digit; got ${JSON.stringify(project)}`);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key for a role: `tc_<role>_<32 base64url characters>`. */
export function generateKey(role: Role): string {
  return `tc_${role}_${randomBytes(24).toString('base64url')}`;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^\s*Bearer\s+(\S{1,512})\s*$/i.exec(header);
  return m ? m[1] : null;
}
