import { describe, expect, it } from 'vitest';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { sessionFigures } from './session-figures.ts';

const totals = (calls: number) => ({ calls, input_tokens: 10 * calls, output_tokens: calls, cost_usd: null });

describe('sessionFigures', () => {
  it('sums tokens per model whatever the models are called, `valueOf` and `__proto__` included (found by the OTLP fuzz test)', () => {
    const trace = (models: Record<string, ReturnType<typeof totals>>) => ({ llm_calls: 1, tool_errors: 0, cost_usd: 0, tokens_by_model: models }) as unknown as Unit;
    const a = JSON.parse('{"valueOf": {"calls": 1, "input_tokens": 10, "output_tokens": 1, "cost_usd": null}, "__proto__": {"calls": 2, "input_tokens": 20, "output_tokens": 2, "cost_usd": null}}') as Record<string, ReturnType<typeof totals>>;
    const figures = sessionFigures([trace(a), trace({ valueOf: totals(3) })], 0, 0, 1_000);
    expect(JSON.parse(JSON.stringify(figures.tokens_by_model))).toEqual(JSON.parse('{"valueOf": {"calls": 4, "input_tokens": 40, "output_tokens": 4, "cost_usd": null}, "__proto__": {"calls": 2, "input_tokens": 20, "output_tokens": 2, "cost_usd": null}}'));
  });
});
