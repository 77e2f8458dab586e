import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { parseLangfuseKeys } from './langfuse-keys.ts';

describe('TRACECHECK_LANGFUSE_KEYS', () => {
  it('maps each Langfuse key pair to an ingest key; commas or newlines separate, # comments and blanks are skipped', () => {
    const c = loadConfig({ TRACECHECK_LANGFUSE_KEYS: 'pk-lf-a:sk-lf-a=tc_ingest_AAA,\n# staging\n pk-lf-b:sk-lf-b=tc_admin_BBB \n' });
    expect(c.langfuseKeys).toEqual([
      { publicKey: 'pk-lf-a', secretKey: 'sk-lf-a', key: 'tc_ingest_AAA' },
      { publicKey: 'pk-lf-b', secretKey: 'sk-lf-b', key: 'tc_admin_BBB' },
    ]);
    expect(loadConfig({}).langfuseKeys).toEqual([]);
  });

  it('names every bad entry with its number and the fix, never showing a secret whole', () => {
    const { pairs, problems } = parseLangfuseKeys(
      ['pk-lf-ok:sk-lf-ok=tc_ingest_OK', 'sk-lf-0123456789abcdef:pk-lf-x=tc_ingest_X', 'pk-lf-y:sk-lf-y', 'pk-lf-z:nope=tc_ingest_Z', 'pk-lf-r:sk-lf-r=tc_read_R', 'pk-lf-t:sk-lf-t=lf_typo_key', 'pk-lf-ok:sk-lf-2=tc_ingest_2', 'public:sk-lf-p=tc_ingest_P'].join(','),
    );
    expect(pairs).toEqual([{ publicKey: 'pk-lf-ok', secretKey: 'sk-lf-ok', key: 'tc_ingest_OK' }]);
    expect(problems).toEqual([
      'entry 2: "sk-lf-0123…" is a secret key; the public key (pk-lf-…) comes first: PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY (e.g. pk-lf-…:sk-lf-…=tc_ingest_…)',
      'entry 3 ("pk-lf-y:sk…"): expected PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY (e.g. pk-lf-…:sk-lf-…=tc_ingest_…)',
      'entry 4 (pk-lf-z): the secret key must start with sk-lf-: PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY (e.g. pk-lf-…:sk-lf-…=tc_ingest_…)',
      'entry 5 (pk-lf-r): a read key cannot send traces; map it to an ingest key (tracecheck keys create --project NAME --role ingest)',
      'entry 6 (pk-lf-t): "lf_typo_ke…" is not a tracecheck ingest key (tc_ingest_…; tracecheck keys create --project NAME --role ingest)',
      'entry 7: public key pk-lf-ok is mapped twice',
      'entry 8: "public" is not a Langfuse public key (pk-lf-…): PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY (e.g. pk-lf-…:sk-lf-…=tc_ingest_…)',
    ]);
    expect(problems.join('\n')).not.toContain('0123456789abcdef');
    expect(() => loadConfig({ TRACECHECK_LANGFUSE_KEYS: 'pk-lf-y:sk-lf-y' })).toThrow('TRACECHECK_LANGFUSE_KEYS: entry 1 ("pk-lf-y:sk…"): expected PUBLIC_KEY:SECRET_KEY=TRACECHECK_KEY');
  });
});
