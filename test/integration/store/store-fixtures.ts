import { randomUUID } from 'node:crypto';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';

// Valid units and scores with unique ids; override what a case is about.

export const T0 = 1_763_600_000_000;

export function makeUnit(overrides: Partial<Unit> = {}): Unit {
  return {
    schema_version: 1,
    unit_id: `u-${randomUUID()}`,
    kind: 'trace',
    trace_ids: ['0af7651916cd43dd8448eb211c80319c'],
    agent_name: 'support-bot',
    agent_version: '1.2.3',
    service: 'support-api',
    environment: 'prod',
    conversation_id: null,
    model: 'gpt-4o-mini',
    model_input: [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Where is my order #42?' },
    ],
    model_output: 'It ships tomorrow.',
    message_history: [
      { role: 'user', content: 'Where is my order #42?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"id":42}' } }],
      },
      { role: 'tool', content: '{"status":"packed"}', tool_call_id: 'call_1' },
      { role: 'assistant', content: 'It ships tomorrow.' },
    ],
    tool_calls: [{ id: 'call_1', name: 'lookup_order', arguments: '{"id":42}', result: '{"status":"packed"}', error: null }],
    tools: [{ type: 'function', function: { name: 'lookup_order', description: 'Finds an order', parameters: { type: 'object' } } }],
    scenario_input: null,
    scenario_result: null,
    simulation_id: null,
    simulation_message_history: null,
    usage: { input_tokens: 120, output_tokens: 30, total_tokens: 150 },
    errors: [],
    truncated: false,
    span_count: 4,
    start_time_ms: T0 - 5_000,
    end_time_ms: T0 - 1_000,
    assembled_at_ms: T0,
    project: 'default',
    ...overrides,
  };
}

export function makeScore(overrides: Partial<Score> = {}): Score {
  return {
    schema_version: 1,
    unit_id: `u-${randomUUID()}`,
    unit_kind: 'trace',
    project: 'default',
    check: 'answer_relevance',
    check_version: '1',
    status: 'ok',
    value: 0.75,
    passed: true,
    explanation: 'The answer addresses the question.',
    method: 'model',
    error: null,
    judge_model: 'gpt-4o-mini',
    latency_ms: 812.5,
    input_tokens: 900,
    output_tokens: 40,
    cost_usd: 0.000123,
    agent_name: 'support-bot',
    agent_version: '1.2.3',
    environment: 'prod',
    service: 'support-api',
    unit_end_time_ms: T0 - 1_000,
    created_at_ms: T0,
    unit_revision: 1,
    ...overrides,
  };
}
