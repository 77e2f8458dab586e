import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { BUILTIN_PRICE_VERSION, builtinPriceTable, callCostUsd, createPriceTable, modelKey, parsePriceFile } from './index.ts';

describe('price table', () => {
  const table = createPriceTable(builtinPriceTable());

  it('finds a dated or prefixed model name by its longest listed prefix', () => {
    expect(table.priceOf('gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6, cache_read: 0.075 });
    expect(table.priceOf('gpt-4o-2024-08-06')?.input).toBe(2.5);
    expect(table.priceOf('openai/gpt-4.1')?.input).toBe(2);
    expect(table.priceOf('us.anthropic.claude-3-5-sonnet-20241022-v2:0')?.cache_write).toBe(3.75);
    expect(table.priceOf('amazon.nova-pro-v1:0')?.output).toBe(3.2);
    expect(table.priceOf('models/gemini-2.5-flash-lite')?.input).toBe(0.1);
    expect(table.priceOf('o3-mini')?.input).toBe(1.1);
    expect(table.priceOf('gpt-4ox')).toBeNull();
    expect(table.priceOf('mock-accurate')).toBeNull();
    expect(modelKey(' GPT-4o ')).toBe('gpt-4o');
    expect(table.version).toBe(BUILTIN_PRICE_VERSION);
  });

  it('prices cached and reasoning tokens apart from the plain ones they are included in', () => {
    // 1,000 input of which 600 cache reads and 100 cache writes; 500 output of which 200 reasoning.
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, reasoning: 20 };
    const usage = { input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 600, cache_creation_input_tokens: 100, reasoning_tokens: 200 };
    expect(callCostUsd(price, usage)).toBe((300 * 3 + 600 * 0.3 + 100 * 3.75 + 300 * 15 + 200 * 20) / 1e6);
    // Without their own prices, cached tokens are input and reasoning tokens output.
    expect(callCostUsd({ input: 2, output: 8 }, usage)).toBe((1000 * 2 + 500 * 8) / 1e6);
  });

  it('counts hostile token counts (negative, not finite, more cached than input) as zero', () => {
    expect(callCostUsd({ input: 2, output: 8 }, { input_tokens: -5, output_tokens: Number.NaN })).toBe(0);
    expect(callCostUsd({ input: 2, output: 8, cache_read: 1 }, { input_tokens: 10, cache_read_input_tokens: 50 })).toBe(50 / 1e6);
  });
});

describe('price file', () => {
  it('lays its entries over the built-in table, or replaces it', () => {
    const over = parsePriceFile(JSON.stringify({ version: 'acme-2026-09', models: { 'gpt-4o': { input: 1, output: 2 } } }), 'f');
    expect(over.version).toBe('acme-2026-09');
    expect(createPriceTable(over).priceOf('gpt-4o')).toEqual({ input: 1, output: 2 });
    expect(createPriceTable(over).priceOf('claude-3-haiku')?.input).toBe(0.25);
    const only = parsePriceFile(JSON.stringify({ version: 'v', replace: true, models: { mine: { input: 1, output: 1 } } }), 'f');
    expect(Object.keys(only.models)).toEqual(['mine']);
  });

  it('refuses a bad file with the reason', () => {
    expect(() => parsePriceFile('{', 'f')).toThrow(PermanentError);
    expect(() => parsePriceFile(JSON.stringify({ version: 'v', models: { m: { input: -1, output: 1 } } }), 'f')).toThrow(/models\.m\.input/);
    expect(() => parsePriceFile(JSON.stringify({ version: 'v', models: { m: { input: 1, output: 1, extra: 1 } } }), 'f')).toThrow(PermanentError);
  });
});
