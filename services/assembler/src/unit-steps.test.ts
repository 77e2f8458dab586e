import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import { createPriceTable } from '../../../shared/engines/pricing/index.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';
import { MAX_MODELS, MAX_STEPS, stepsOf } from './unit-steps.ts';

const prices = createPriceTable({ version: 'p1', models: { big: { input: 3, output: 15, cache_read: 0.3, reasoning: 15 } } });
const T0 = 1_700_000_000_000;

function call(model: string, startMs: number, extra: Partial<SpanRecord['genai']> = {}): SpanRecord {
  return createTestSpan({ startMs, endMs: startMs + 100, genai: { operation: 'chat', response_model: model, usage: { input_tokens: 1000, output_tokens: 100 }, ...extra } });
}

describe('stepsOf', () => {
  it('prices cached and reasoning tokens, and leaves an unknown model unpriced', () => {
    const spans = [call('big', T0, { usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 800, reasoning_tokens: 40 } }), call('small', T0 + 200)];
    const f = stepsOf({ spans, toolCalls: [], startMs: T0, endMs: T0 + 300, prices });
    expect(f.steps.map((s) => (s.type === 'llm' ? s.cost_usd : undefined))).toEqual([(200 * 3 + 800 * 0.3 + 60 * 15 + 40 * 15) / 1e6, null]);
    expect([f.cost_usd, f.unpriced_llm_calls, f.llm_calls, f.duration_ms, f.price_table]).toEqual([0.00234, 1, 2, 300, 'p1']);
    expect(f.tokens_by_model.small).toEqual({ input_tokens: 1000, output_tokens: 100, calls: 1, cost_usd: null });
  });

  it('counts a wrapper that carries a model (an agent run, a framework span) as no call of its own', () => {
    const agent = createTestSpan({ startMs: T0, endMs: T0 + 500, genai: { operation: 'invoke_agent', agent_name: 'a', request_model: 'big', usage: { input_tokens: 1, output_tokens: 1 } } });
    const outer = createTestSpan({ startMs: T0, endMs: T0 + 400, parent_span_id: agent.span_id, genai: { request_model: 'big', usage: { input_tokens: 1000, output_tokens: 100 } } });
    const inner = { ...call('big', T0 + 1), parent_span_id: outer.span_id };
    const f = stepsOf({ spans: [agent, outer, inner], toolCalls: [], startMs: T0, endMs: T0 + 500, prices });
    expect(f.steps.map((s) => [s.type, s.span_id, s.agent])).toEqual([['llm', inner.span_id, 'a']]);
  });

  it('caps the steps and the models of a hostile trace, cutting long names, and still counts everything', () => {
    const long = 'm'.repeat(5000);
    const spans = Array.from({ length: MAX_STEPS + 50 }, (_, i) => call(i < 100 ? `${i}${long}` : 'big', T0 + i));
    const f = stepsOf({ spans, toolCalls: [], startMs: T0, endMs: T0 + 2000, prices });
    expect([f.steps.length, f.steps_dropped, f.llm_calls]).toEqual([MAX_STEPS, 50, MAX_STEPS + 50]);
    expect(Object.keys(f.tokens_by_model)).toHaveLength(MAX_MODELS);
    // The first 31 models have their own entry; the rest, `big` among them, are `other`.
    expect(f.tokens_by_model.other.calls).toBe(MAX_STEPS + 50 - (MAX_MODELS - 1));
    expect(Math.max(...f.steps.map((s) => (s.type === 'llm' ? (s.model ?? '').length : 0)))).toBe(200);
  });

  it('marks a hand-off whenever control passes between named agents', () => {
    const a = createTestSpan({ startMs: T0, endMs: T0 + 100, genai: { operation: 'invoke_agent', agent_name: 'triage' } });
    const b = createTestSpan({ startMs: T0 + 100, endMs: T0 + 200, genai: { operation: 'invoke_agent', agent_name: 'billing' } });
    const c1 = { ...call('big', T0 + 10), parent_span_id: a.span_id };
    const c2 = { ...call('big', T0 + 110), parent_span_id: b.span_id };
    const f = stepsOf({ spans: [a, c1, b, c2], toolCalls: [], startMs: T0, endMs: T0 + 200, prices });
    expect(f.steps.map((s) => (s.type === 'handoff' ? `${s.from}->${s.agent}` : `${s.type}:${s.agent}`))).toEqual(['llm:triage', 'triage->billing', 'llm:billing']);
  });
});

describe('stepsOf: MCP requests', () => {
  const mcpSpan = (side: 'client' | 'server', startMs: number, extra: Partial<SpanRecord> & { requestId?: string; method?: string } = {}): SpanRecord => {
    const { requestId, method = 'tools/call', ...rest } = extra;
    return createTestSpan({
      startMs,
      endMs: startMs + 10,
      span_kind: side === 'client' ? 3 : 2,
      genai: { operation: 'execute_tool', tool_execution: { name: 'get_weather' }, mcp: { method, side, session_id: 's1', ...(requestId ? { request_id: requestId } : {}) } },
      ...rest,
    });
  };

  it('folds the server span of the same method and request into its parent client span: one step', () => {
    const client = mcpSpan('client', T0);
    const server = mcpSpan('server', T0 + 1, { parent_span_id: client.span_id, requestId: '4' });
    const f = stepsOf({ spans: [client, server], toolCalls: [], startMs: T0, endMs: T0 + 20, prices });
    expect(f.steps.map((s) => [s.type, s.span_id, s.type === 'tool' ? s.mcp : null])).toEqual([['tool', client.span_id, { method: 'tools/call', side: 'client', session_id: 's1', request_id: '4' }]]);
  });

  it('keeps both when the server span answers another request or method, or has no client parent in the trace', () => {
    const client = mcpSpan('client', T0, { requestId: '1' });
    const other = mcpSpan('server', T0 + 1, { parent_span_id: client.span_id, requestId: '2' });
    const method = mcpSpan('server', T0 + 2, { parent_span_id: client.span_id, method: 'resources/read' });
    const orphan = mcpSpan('server', T0 + 3, { parent_span_id: 'ffffffffffffffff' });
    const f = stepsOf({ spans: [client, other, method, orphan], toolCalls: [], startMs: T0, endMs: T0 + 20, prices });
    expect(f.steps.map((s) => s.span_id)).toEqual([client.span_id, other.span_id, method.span_id, orphan.span_id]);
  });
});
