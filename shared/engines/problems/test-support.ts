import type { UnitStep } from '../../contracts/schemas/index.ts';
import type { FailureScore, FailureUnit } from './signature.ts';
import type { UnitRef } from './book.ts';

/** A unit for tests: tool steps are made from `tools` (name, error or null, arguments). */
export function failureUnit(id: string, over: Partial<FailureUnit> & { tools?: Array<[string, string | null, string?]>; agent?: string } = {}): FailureUnit {
  const agent = over.agent ?? 'support';
  const tools = over.tools ?? [];
  const steps: UnitStep[] = tools.map(([name, error], i) => ({ type: 'tool', agent, start_ms: i * 10, name, call_id: `c${i}`, latency_ms: 5, status: error === null ? 'ok' : 'error', ...(error === null ? {} : { error }) }));
  return {
    unit_id: id,
    agent_name: agent,
    agent_version: 'v1',
    end_time_ms: 0,
    errors: [],
    tool_calls: tools.map(([name, error, args], i) => ({ id: `c${i}`, name, arguments: args ?? '{}', result: error === null ? 'ok' : null, error })),
    steps,
    ...over,
  };
}

export function refOf(unit: FailureUnit): UnitRef {
  return { unit_id: unit.unit_id, agent_name: unit.agent_name, agent_version: unit.agent_version, end_time_ms: unit.end_time_ms };
}

export const failed = (check: string, explanation = ''): FailureScore => ({ check, status: 'ok', passed: false, explanation, error: null });
export const passed = (check: string): FailureScore => ({ check, status: 'ok', passed: true, explanation: '', error: null });
