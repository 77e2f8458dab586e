import { describe, expect, it } from 'vitest';
import { admissionKey } from './admission.ts';
import type { Authorize } from './ingest.ts';
import { basicCredentials, withLangfuseKeys } from './langfuse-door.ts';

const basic = (pair: string): string => `Basic ${Buffer.from(pair).toString('base64')}`;
const PAIRS = [{ publicKey: 'pk-lf-shop', secretKey: 'sk-lf-shop-secret', key: 'tc_ingest_SHOP' }];

/** A keyring with one key, `tc_ingest_SHOP` of project shop; `open`: no key exists at all. */
function keyring(open = false): { authorize: Authorize; seen: Array<string | undefined> } {
  const seen: Array<string | undefined> = [];
  const authorize: Authorize = (header) => {
    seen.push(header);
    if (open) return Promise.resolve({ ok: true, project: undefined });
    return Promise.resolve(header === 'Bearer tc_ingest_SHOP' ? { ok: true, project: 'shop' } : { ok: false, status: 401, message: 'unknown or revoked API key' });
  };
  return { authorize, seen };
}

describe('the Langfuse door', () => {
  it('takes a mapped key pair as its ingest key', async () => {
    const k = keyring();
    expect(await withLangfuseKeys(k.authorize, PAIRS)(basic('pk-lf-shop:sk-lf-shop-secret'))).toEqual({ ok: true, project: 'shop' });
    expect(k.seen).toEqual(['Bearer tc_ingest_SHOP']);
  });

  it('refuses a wrong secret, an unknown public key, and a pair the operator never mapped, without asking the keyring', async () => {
    const k = keyring();
    const door = withLangfuseKeys(k.authorize, PAIRS);
    const wrong = { ok: false, status: 401, message: 'unknown Langfuse public key, or the wrong secret key for it (the pairs are mapped in TRACECHECK_LANGFUSE_KEYS)' };
    expect(await door(basic('pk-lf-shop:sk-lf-shop-secreT'))).toEqual(wrong);
    expect(await door(basic('pk-lf-shop:'))).toEqual(wrong);
    expect(await door(basic('pk-lf-other:sk-lf-shop-secret'))).toEqual(wrong);
    expect(k.seen).toEqual([]);
    const unmapped = withLangfuseKeys(k.authorize, []);
    expect(await unmapped(basic('pk-lf-shop:sk-lf-shop-secret'))).toEqual({
      ok: false,
      status: 401,
      message: 'Langfuse keys (Authorization: Basic) are taken only once the operator maps them to ingest keys in TRACECHECK_LANGFUSE_KEYS (docs/migrating-from-langfuse.md)',
    });
  });

  it('leaves bearer keys to the keyring, and takes any Basic header where no key exists at all (open quick start)', async () => {
    const k = keyring();
    expect(await withLangfuseKeys(k.authorize, PAIRS)('Bearer tc_ingest_SHOP')).toEqual({ ok: true, project: 'shop' });
    const open = keyring(true);
    expect(await withLangfuseKeys(open.authorize, [])(basic('pk-lf-any:sk-lf-any'))).toEqual({ ok: true, project: undefined });
  });

  it('reads Basic credentials (the secret may hold colons) and keys admission by the public key', () => {
    expect(basicCredentials(basic('pk-lf-a:sk:with:colons'))).toEqual({ publicKey: 'pk-lf-a', secretKey: 'sk:with:colons' });
    expect([basicCredentials('Bearer x'), basicCredentials(basic('no-colon')), basicCredentials(undefined)]).toEqual([undefined, undefined, undefined]);
    expect([admissionKey(basic('pk-lf-a:sk-lf-1')), admissionKey(basic('pk-lf-a:sk-lf-2')), admissionKey('Bearer tc_x'), admissionKey(undefined)]).toEqual(['langfuse:pk-lf-a', 'langfuse:pk-lf-a', 'tc_x', '']);
  });
});
