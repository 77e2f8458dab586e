import type { ModelPrice } from './price-table.ts';

/**
 * The built-in table's version: every unit it prices records it (`price_table`), so a figure can be
 * traced to the prices behind it when they change.
 */
export const BUILTIN_PRICE_VERSION = 'builtin-2025-06-15';

// Public list prices in USD per 1M tokens as of the version's date (standard tier, short prompts,
// no batch discount), for the common models of the providers the GenAI conventions name. Cached
// input (`cache_read`) and cache writes are priced where the provider prices them apart; reasoning
// tokens are billed as output tokens by every provider here, so they take the output price unless
// an entry says otherwise. AWS Bedrock ids (`us.anthropic.claude-…-v2:0`, `amazon.nova-…`) are
// matched after their region and vendor prefix (see modelKey). Check them against your invoices and
// override what differs with TRACECHECK_PRICES_FILE (docs/cost-and-latency.md).
const p = (input: number, output: number, extra: Partial<Pick<ModelPrice, 'cache_read' | 'cache_write' | 'reasoning'>> = {}): ModelPrice => ({ input, output, ...extra });

export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-4o': p(2.5, 10, { cache_read: 1.25 }),
  'gpt-4o-mini': p(0.15, 0.6, { cache_read: 0.075 }),
  'gpt-4.1': p(2, 8, { cache_read: 0.5 }),
  'gpt-4.1-mini': p(0.4, 1.6, { cache_read: 0.1 }),
  'gpt-4.1-nano': p(0.1, 0.4, { cache_read: 0.025 }),
  o1: p(15, 60, { cache_read: 7.5 }),
  o3: p(2, 8, { cache_read: 0.5 }),
  'o3-mini': p(1.1, 4.4, { cache_read: 0.55 }),
  'o4-mini': p(1.1, 4.4, { cache_read: 0.275 }),
  'text-embedding-3-small': p(0.02, 0),
  'text-embedding-3-large': p(0.13, 0),
  // Anthropic (cache reads at 0.1x input, 5-minute cache writes at 1.25x)
  'claude-opus-4': p(15, 75, { cache_read: 1.5, cache_write: 18.75 }),
  'claude-sonnet-4': p(3, 15, { cache_read: 0.3, cache_write: 3.75 }),
  'claude-3-7-sonnet': p(3, 15, { cache_read: 0.3, cache_write: 3.75 }),
  'claude-3-5-sonnet': p(3, 15, { cache_read: 0.3, cache_write: 3.75 }),
  'claude-3-5-haiku': p(0.8, 4, { cache_read: 0.08, cache_write: 1 }),
  'claude-3-haiku': p(0.25, 1.25, { cache_read: 0.03, cache_write: 0.3 }),
  // Google (Gemini API / Vertex AI, prompts up to 200k tokens)
  'gemini-2.5-pro': p(1.25, 10, { cache_read: 0.31 }),
  'gemini-2.5-flash': p(0.3, 2.5, { cache_read: 0.075 }),
  'gemini-2.5-flash-lite': p(0.1, 0.4, { cache_read: 0.025 }),
  'gemini-2.0-flash': p(0.1, 0.4, { cache_read: 0.025 }),
  'gemini-1.5-pro': p(1.25, 5),
  'gemini-1.5-flash': p(0.075, 0.3),
  // AWS Bedrock's own models
  'nova-pro': p(0.8, 3.2),
  'nova-lite': p(0.06, 0.24),
  'nova-micro': p(0.035, 0.14),
  // Mistral
  'mistral-large': p(2, 6),
  'mistral-small': p(0.1, 0.3),
  codestral: p(0.3, 0.9),
  // Cohere
  'command-a': p(2.5, 10),
  'command-r-plus': p(2.5, 10),
  'command-r': p(0.15, 0.6),
};
