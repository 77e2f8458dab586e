import { z } from 'zod';

/** A Langfuse SDK's key pair and the tracecheck ingest key its exports are taken as. */
export interface LangfuseKeyPair {
  publicKey: string;
  secretKey: string;
  /** Our key (`tc_ingest_…` or `tc_admin_…`): its project receives the spans. */
  key: string;
}

const FORMAT = 'PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY (e.g. pk-lf-…:sk-lf-…=tc_ingest_…)';

/** Enough of a value to find it in the setting, never a secret whole. */
const hint = (s: string): string => (s.length > 10 ? `${s.slice(0, 10)}…` : s);

/**
 * `TRACECHECK_LANGFUSE_KEYS`: entries `PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY` separated by commas or
 * newlines (so a file's contents can be passed as is). Every problem is named with its entry's
 * number, showing at most the start of a key.
 */
export function parseLangfuseKeys(text: string): { pairs: LangfuseKeyPair[]; problems: string[] } {
  const pairs: LangfuseKeyPair[] = [];
  const problems: string[] = [];
  const entries = text.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== '' && !e.startsWith('#'));
  entries.forEach((entry, i) => {
    const at = `entry ${i + 1}`;
    const m = /^([^:=\s]+):([^=\s]+)=(\S+)$/.exec(entry);
    if (!m) return problems.push(`${at} ("${hint(entry)}"): expected ${FORMAT}`);
    const [, publicKey, secretKey, key] = m;
    if (publicKey.startsWith('sk-lf-')) return problems.push(`${at}: "${hint(publicKey)}" is a secret key; the public key (pk-lf-…) comes first: ${FORMAT}`);
    if (!publicKey.startsWith('pk-lf-')) return problems.push(`${at}: "${hint(publicKey)}" is not a Langfuse public key (pk-lf-…): ${FORMAT}`);
    if (!secretKey.startsWith('sk-lf-')) return problems.push(`${at} (${publicKey}): the secret key must start with sk-lf-: ${FORMAT}`);
    if (key.startsWith('tc_read_')) return problems.push(`${at} (${publicKey}): a read key cannot send traces; map it to an ingest key (tracecheck keys create --project NAME --role ingest)`);
    if (!/^tc_(ingest|admin)_\S+$/.test(key)) return problems.push(`${at} (${publicKey}): "${hint(key)}" is not a tracecheck ingest key (tc_ingest_…; tracecheck keys create --project NAME --role ingest)`);
    if (pairs.some((p) => p.publicKey === publicKey)) return problems.push(`${at}: public key ${publicKey} is mapped twice`);
    pairs.push({ publicKey, secretKey, key });
    return undefined;
  });
  return { pairs, problems };
}

/** Spread into ConfigSchema. */
export const LANGFUSE_KEYS_ENV = {
  TRACECHECK_LANGFUSE_KEYS: z
    .string()
    .default('')
    .transform((text, ctx): LangfuseKeyPair[] => {
      const { pairs, problems } = parseLangfuseKeys(text);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return pairs;
    }),
};
