import type { TokenUsage } from '../../contracts/schemas/index.ts';

/** USD per 1M tokens. `cache_read`/`cache_write` default to `input`, `reasoning` to `output`. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
  reasoning?: number;
}

export interface PriceTable {
  /** Recorded on every unit the table priced (`price_table`). */
  version: string;
  /** By lower-case model name or name prefix (`gpt-4o` prices `gpt-4o-2024-08-06`). */
  models: Readonly<Record<string, ModelPrice>>;
}

export interface PricedTable extends PriceTable {
  /** The price of a model name as instrumentations report it, or null when the table has none. */
  priceOf(model: string): ModelPrice | null;
}

// Bedrock model ids: `us.anthropic.claude-3-5-sonnet-20241022-v2:0`, `amazon.nova-pro-v1:0`;
// routers and SDKs: `openai/gpt-4o`, `models/gemini-2.0-flash`.
const REGION_PREFIX = /^(us|eu|apac|us-gov|global)\./;
const VENDOR_PREFIX = /^(anthropic|amazon|meta|mistral|cohere|ai21|openai|google)\./;

/** The name a price is looked up by: lower case, without provider, region or path prefixes. */
export function modelKey(model: string): string {
  let key = model.trim().toLowerCase();
  key = key.slice(key.lastIndexOf('/') + 1);
  key = key.replace(REGION_PREFIX, '').replace(VENDOR_PREFIX, '');
  return key;
}

/**
 * A table with lookups: the exact name, else the longest entry the name starts with followed by a
 * separator (`-`, `:`, `@`, `.`), so `gpt-4o-mini-2024-07-18` is `gpt-4o-mini` and not `gpt-4o`.
 * Lookups are remembered (model names repeat on every call), at most a bounded number.
 */
export function createPriceTable(table: PriceTable): PricedTable {
  const models = new Map<string, ModelPrice>();
  for (const [name, price] of Object.entries(table.models)) models.set(modelKey(name), price);
  const byLength = [...models.keys()].sort((a, b) => b.length - a.length);
  const memo = new Map<string, ModelPrice | null>();
  const MEMO_MAX = 10_000;
  const lookup = (model: string): ModelPrice | null => {
    const key = modelKey(model);
    const exact = models.get(key);
    if (exact) return exact;
    for (const name of byLength) {
      if (key.startsWith(name) && '-:@.'.includes(key.charAt(name.length))) return models.get(name)!;
    }
    return null;
  };
  return {
    version: table.version,
    models: table.models,
    priceOf(model: string): ModelPrice | null {
      const known = memo.get(model);
      if (known !== undefined) return known;
      const price = lookup(model);
      if (memo.size < MEMO_MAX) memo.set(model, price);
      return price;
    },
  };
}

const nonNegative = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * USD of one model call. Per the GenAI conventions `input_tokens` includes the cached ones (read
 * and written) and `output_tokens` the reasoning ones, so those are taken out of the plain counts
 * and priced at their own rates. Counts below zero or not finite (hostile input) count as zero.
 */
export function callCostUsd(price: ModelPrice, usage: TokenUsage): number {
  const cacheRead = nonNegative(usage.cache_read_input_tokens);
  const cacheWrite = nonNegative(usage.cache_creation_input_tokens);
  const reasoning = nonNegative(usage.reasoning_tokens);
  const plainInput = Math.max(0, nonNegative(usage.input_tokens) - cacheRead - cacheWrite);
  const plainOutput = Math.max(0, nonNegative(usage.output_tokens) - reasoning);
  const micro =
    plainInput * price.input +
    cacheRead * (price.cache_read ?? price.input) +
    cacheWrite * (price.cache_write ?? price.input) +
    plainOutput * price.output +
    reasoning * (price.reasoning ?? price.output);
  return micro / 1_000_000;
}
