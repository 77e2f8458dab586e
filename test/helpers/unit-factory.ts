import type { Unit } from '../../shared/contracts/schemas/index.ts';

/** A trace unit as the assembler publishes it: one question, one answer (task_completed passes on it). */
export function createTestUnit(i: number, overrides: Partial<Unit> = {}): Unit {
  const id = `${overrides.agent_name ?? 'agent'}-${i.toString(16).padStart(8, '0')}`;
  const now = Date.now();
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'agent', agent_version: 'v1', service: 'svc', environment: 'prod', conversation_id: null,
    model: 'm', model_input: [{ role: 'user', content: `What is ${i} + 1?` }], model_output: `${i + 1}`,
    message_history: [{ role: 'user', content: `What is ${i} + 1?` }, { role: 'assistant', content: `${i + 1}` }],
    tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 5, output_tokens: 1 }, errors: [], truncated: false, span_count: 2, start_time_ms: now - 1_000 - i, end_time_ms: now - i, assembled_at_ms: now,
    ...overrides,
  };
}
