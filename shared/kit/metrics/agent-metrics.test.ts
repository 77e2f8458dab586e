import { describe, expect, it } from 'vitest';
import type { Unit } from '../../contracts/schemas/index.ts';
import { MAX_AGENT_LABELS, createLabelCap } from './agent-metrics.ts';
import { createMetrics, renderMetrics } from './metrics.ts';

const unit = (agent: string, o: Partial<Unit> = {}): Unit => ({
  schema_version: 1, unit_id: 'u', kind: 'trace', trace_ids: [], agent_name: agent, agent_version: null, service: null, environment: null, conversation_id: null, model: null,
  model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
  usage: {}, errors: [], truncated: false, span_count: 1, start_time_ms: 0, end_time_ms: 1500, assembled_at_ms: 0,
  duration_ms: 1500, llm_calls: 2, tool_call_count: 1, tool_errors: 1, cost_usd: 0.25, tokens_by_model: { 'gpt-4o': { calls: 2, cost_usd: 0.25, input_tokens: 1, output_tokens: 1 } }, ...o,
});

describe('per-agent metrics', () => {
  it('counts runs, duration, calls, cost and tool errors per agent and model', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.agents.observeUnit(unit('planner'));
    metrics.agents.observeUnit(unit('planner', { errors: [{ span_id: 'a'.repeat(16), message: 'x' }] }));
    const text = await renderMetrics(metrics);
    expect(text).toContain('tracecheck_agent_units_total{agent="planner",outcome="ok"} 1');
    expect(text).toContain('tracecheck_agent_units_total{agent="planner",outcome="error"} 1');
    expect(text).toContain('tracecheck_agent_unit_duration_seconds_bucket{le="2.5",agent="planner"} 2');
    expect(text).toContain('tracecheck_agent_llm_calls_total{agent="planner",model="gpt-4o"} 4');
    expect(text).toContain('tracecheck_agent_cost_usd_total{agent="planner",model="gpt-4o"} 0.5');
    expect(text).toContain('tracecheck_agent_tool_errors_total{agent="planner"} 2');
  });

  it('gives the first agents their own label value and counts the rest as other', async () => {
    const cap = createLabelCap(2);
    expect(['a', 'b', 'c', 'a', 'x'.repeat(500)].map(cap)).toEqual(['a', 'b', 'other', 'a', 'other']);
    const metrics = createMetrics({ defaultMetrics: false });
    for (let i = 0; i < MAX_AGENT_LABELS + 25; i++) metrics.agents.observeUnit(unit(`agent-${i}`));
    const text = await renderMetrics(metrics);
    expect(text.match(/^tracecheck_agent_units_total\{/gm)).toHaveLength(MAX_AGENT_LABELS + 1);
    expect(text).toContain('tracecheck_agent_units_total{agent="other",outcome="ok"} 25');
  });
});
