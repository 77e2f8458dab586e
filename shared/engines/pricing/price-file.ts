import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PermanentError } from '../../runtime/errors/index.ts';
import { BUILTIN_PRICE_VERSION, BUILTIN_PRICES } from './builtin-prices.ts';
import type { PriceTable } from './price-table.ts';

const usdPerMillion = z.number().nonnegative().finite();

const ModelPriceSchema = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  cache_read: usdPerMillion.optional(),
  cache_write: usdPerMillion.optional(),
  reasoning: usdPerMillion.optional(),
});

/**
 * `TRACECHECK_PRICES_FILE`: `{"version": "…", "models": {"name": {input, output, cache_read?,
 * cache_write?, reasoning?}}, "replace"?: false}` in USD per 1M tokens. Its entries are laid over
 * the built-in table (or replace it with `replace: true`); units priced by it record its version.
 */
const PriceFileSchema = z.strictObject({
  version: z.string().min(1).max(100),
  models: z.record(z.string().min(1).max(200), ModelPriceSchema),
  replace: z.boolean().default(false),
});

export function builtinPriceTable(): PriceTable {
  return { version: BUILTIN_PRICE_VERSION, models: BUILTIN_PRICES };
}

/** The price table from a file's text (laid over the built-in one); a bad file is a PermanentError naming the problem. */
export function parsePriceFile(text: string, source: string): PriceTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new PermanentError(`${source}: not JSON`, { cause: err });
  }
  const parsed = PriceFileSchema.safeParse(value);
  if (!parsed.success) {
    throw new PermanentError(`${source}: ${parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const file = parsed.data;
  return { version: file.version, models: file.replace ? file.models : { ...BUILTIN_PRICES, ...file.models } };
}

/** The table the assembler prices with: the file's when one is configured, else the built-in one. */
export function loadPriceTable(path: string | null): PriceTable {
  if (path === null) return builtinPriceTable();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PermanentError(`TRACECHECK_PRICES_FILE ${path}: cannot read`, { cause: err });
  }
  return parsePriceFile(text, `TRACECHECK_PRICES_FILE ${path}`);
}
