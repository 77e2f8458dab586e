import type { ModelTotals, Unit } from '../../../shared/contracts/schemas/index.ts';
import { MAX_MODELS } from './unit-steps.ts';

/**
 * A session's step figures from its units' (the previous session unit carries the sums of its
 * traces so far): calls, errors, tokens per model and cost summed; steps themselves stay on the
 * trace units. Empty when no unit has figures (units stored before step figures existed).
 */
export function sessionFigures(all: readonly Unit[], toolCallCount: number, startMs: number, endMs: number): Partial<Unit> {
  const withFigures = all.filter((u) => u.llm_calls !== undefined);
  if (withFigures.length === 0) return {};
  let costNano = 0;
  let llmCalls = 0;
  let toolErrors = 0;
  let unpriced = 0;
  // Model names are the trace's text: a map with no prototype, so `valueOf` or `__proto__` is just a name.
  const byModel: Record<string, ModelTotals> = Object.create(null) as Record<string, ModelTotals>;
  for (const u of withFigures) {
    llmCalls += u.llm_calls ?? 0;
    toolErrors += u.tool_errors ?? 0;
    unpriced += u.unpriced_llm_calls ?? 0;
    costNano += Math.round((u.cost_usd ?? 0) * 1e9);
    for (const [name, t] of Object.entries(u.tokens_by_model ?? {})) {
      const key = Object.hasOwn(byModel, name) || Object.keys(byModel).length < MAX_MODELS - 1 ? name : 'other';
      const prev = byModel[key];
      byModel[key] = prev ? addTotals(prev, t) : { ...t };
    }
  }
  const priceTable = withFigures.findLast((u) => u.price_table !== undefined)?.price_table;
  return {
    duration_ms: Math.max(0, endMs - startMs),
    llm_calls: llmCalls,
    tool_call_count: toolCallCount,
    tool_errors: toolErrors,
    tokens_by_model: byModel,
    cost_usd: costNano / 1e9,
    unpriced_llm_calls: unpriced,
    ...(priceTable !== undefined ? { price_table: priceTable } : {}),
  };
}

function addTotals(a: ModelTotals, b: ModelTotals): ModelTotals {
  const sum = (x: number | undefined, y: number | undefined): number | undefined => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const out: ModelTotals = { calls: a.calls + b.calls, cost_usd: a.cost_usd === null && b.cost_usd === null ? null : Math.round(((a.cost_usd ?? 0) + (b.cost_usd ?? 0)) * 1e9) / 1e9 };
  for (const k of ['input_tokens', 'output_tokens', 'total_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens', 'reasoning_tokens'] as const) {
    const v = sum(a[k], b[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}
