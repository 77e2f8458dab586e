import { describe, expect, it } from 'vitest';
import type { Unit } from '../../../../shared/contracts/schemas/index.ts';
import { agentGraph, timeline } from './unit-timeline.ts';

const base = {
  schema_version: 1, unit_id: 'u1', kind: 'trace', trace_ids: ['u1'], agent_name: 'triage', agent_version: 'v1', service: null, environment: null, conversation_id: null, model: null,
  model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
  usage: {}, errors: [], truncated: false, span_count: 4, start_time_ms: 0, end_time_ms: 400, assembled_at_ms: 400, duration_ms: 400,
} satisfies Unit;

const unit: Unit = {
  ...base,
  steps: [
    { type: 'llm', span_id: 'a', agent: 'triage', start_ms: 0, model: '<img src=x onerror=alert(1)>', provider: 'openai', input_tokens: 93, output_tokens: 12, latency_ms: 43.135, ttft_ms: 20, status: 'ok', cost_usd: 0.000282 },
    { type: 'handoff', agent: 'billing', start_ms: 50, from: 'triage' },
    { type: 'tool', span_id: 'b', agent: 'billing', start_ms: 60, name: '<script>alert(2)</script>', call_id: 'c1', latency_ms: 8.271, status: 'error', error: '"quoted" & <b>' },
  ],
};

describe('unit timeline and agent graph', () => {
  it('shows each step with its latency, tokens and cost, names as text', () => {
    const html = timeline(unit).value;
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).not.toMatch(/<script>|<img /);
    expect(html).toContain('<td data-latency>43.1 ms</td><td data-tokens>93 / 12</td><td>20.0 ms</td><td data-cost>$0.000282</td>');
    expect(html).toContain('hand-off triage → billing');
  });

  it('draws each agent with its models and tools and the hand-off between them, with counts', () => {
    const html = agentGraph(unit).value;
    expect(html.match(/data-agent-node/g)).toHaveLength(2);
    expect(html).toContain('hand-off ×1');
    expect(html).toContain('▸ &lt;script&gt;alert(2)&lt;/script ×1');
    expect(html).not.toMatch(/<script>/);
  });
});

describe('plan, memory and MCP steps on the timeline', () => {
  const withNewSteps: Unit = {
    ...base,
    steps: [
      { type: 'plan', span_id: 'p', agent: 'triage', start_ms: 0, name: 'plan <triage>', latency_ms: 2.5, status: 'ok' },
      { type: 'memory', span_id: 'm', agent: 'triage', start_ms: 3, operation: 'search_memory', store_id: 'prefs', record_count: 2, latency_ms: 1.25, status: 'ok' },
      { type: 'tool', span_id: 't', agent: 'triage', start_ms: 5, name: 'resources/read weather://paris', call_id: null, latency_ms: 10, status: 'ok', mcp: { method: 'resources/read', side: 'client', session_id: 's1', resource_uri: 'weather://paris' } },
    ],
  };

  it('names each step by its kind, with the memory store and record count and the MCP method, as text', () => {
    const html = timeline(withNewSteps).value;
    expect(html).toContain('<tr data-step="plan"><td>triage</td><td data-step-name>plan: plan &lt;triage&gt;</td><td>0.0 ms</td><td data-latency>2.5 ms</td>');
    expect(html).toContain('<td data-step-name>search_memory prefs (2 records)</td>');
    expect(html).toContain('<td data-step-name>resources/read weather://paris (MCP resources/read)</td>');
    expect(html).toContain('☰ plan: plan &lt;triage&gt;');
    expect(html).toContain('▣ search_memory prefs (2 records</text>');
  });

  it('leaves plans and memory operations out of the agent graph, which lists models and tools', () => {
    const html = agentGraph(withNewSteps).value;
    expect(html).toContain('▸ resources/read weather:/ ×1');
    expect(html).not.toContain('search_memory');
  });
});
