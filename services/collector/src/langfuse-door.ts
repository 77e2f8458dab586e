import { createHash, timingSafeEqual } from 'node:crypto';
import type { LangfuseKeyPair } from '../../../shared/runtime/config/index.ts';
import type { Authorize } from './ingest.ts';

// The Langfuse SDKs send OTLP/HTTP to `<base URL>/api/public/otel/v1/traces` with
// `Authorization: Basic base64(public key:secret key)` (and `x-langfuse-*` headers, which need
// nothing from us). The operator maps each key pair to one of our ingest keys
// (TRACECHECK_LANGFUSE_KEYS); the export is then that key's, as if it had been sent with it.

/** Where the Langfuse SDKs send their traces, beside OTLP's own `/v1/traces`. */
export const LANGFUSE_TRACES_PATH = '/api/public/otel/v1/traces';

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The key pair of an `Authorization: Basic …` header, or undefined for any other header. */
export function basicCredentials(header: string | undefined): { publicKey: string; secretKey: string } | undefined {
  const m = header === undefined ? null : /^\s*Basic\s+([A-Za-z0-9+/=_-]{1,2048})\s*$/i.exec(header);
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { publicKey: text.slice(0, colon), secretKey: text.slice(colon + 1) };
}

const UNMAPPED = 'Langfuse keys (Authorization: Basic) are taken only once the operator maps them to ingest keys in TRACECHECK_LANGFUSE_KEYS (docs/migrating-from-langfuse.md)';
const WRONG_PAIR = 'unknown Langfuse public key, or the wrong secret key for it (the pairs are mapped in TRACECHECK_LANGFUSE_KEYS)';

/**
 * `authorize` that also takes a mapped Langfuse key pair as its ingest key. The secret is compared
 * in constant time (as SHA-256 digests, so lengths never differ), and an unknown public key costs
 * the same comparison. A Basic header with no pairs mapped is taken only where no key is needed at
 * all (no keys exist: the open quick start).
 */
export function withLangfuseKeys(authorize: Authorize, pairs: readonly LangfuseKeyPair[]): Authorize {
  const byPublicKey = new Map(pairs.map((p) => [p.publicKey, { secret: sha256(p.secretKey), authorization: `Bearer ${p.key}` }]));
  const nobody = sha256('\0no pair');
  return async (header, peer) => {
    const basic = basicCredentials(header);
    if (!basic) return authorize(header, peer);
    if (byPublicKey.size === 0) {
      const open = await authorize(undefined, peer);
      return open.ok ? open : { ok: false, status: 401, message: UNMAPPED };
    }
    const pair = byPublicKey.get(basic.publicKey);
    const matches = timingSafeEqual(sha256(basic.secretKey), pair?.secret ?? nobody);
    if (!pair || !matches) return { ok: false, status: 401, message: WRONG_PAIR };
    return authorize(pair.authorization, peer);
  };
}
