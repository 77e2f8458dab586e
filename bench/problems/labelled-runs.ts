// Labelled conversations (bench/data/problem-labels) as the problem miner sees units: steps in
// message order (a model step per assistant turn, a tool step per tool result, a hand-off where the
// speaking agent changes), tool calls with their results and errors, and each step's message
// position so that a signature's failure point can be compared with the human's.
import type { FailureUnit } from '../../shared/engines/problems/index.ts';
import type { UnitToolCall } from '../../shared/contracts/schemas/index.ts';

export interface LabelMessage {
  role: string;
  name?: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface LabelledUnit {
  unit: FailureUnit;
  /** Message position of each step (hand-offs: the message of the agent taking over; tool steps: the result's). */
  messageOfStep: number[];
  /** As messageOfStep, but a tool step at the message that made the call (the agent's turn). */
  callerOfStep: number[];
  /** Message position of each tool call. */
  messageOfCall: number[];
}

/** tau-bench tools answer `Error: …`; AG2's executor `exitcode: 1 (execution failed)`. */
const FAILED_RESULT = /^Error\b|exitcode: [1-9]|Traceback \(most recent call last\)/;

/**
 * `executor`: the name of a tool-role speaker that runs the previous agent's message (AG2's
 * Computer_terminal), whose turn becomes a call by that agent with the message as its arguments.
 */
export function labelledUnit(id: string, messages: readonly LabelMessage[], executor: string | null): LabelledUnit {
  const steps: Array<Record<string, unknown>> = [];
  const messageOfStep: number[] = [];
  const callerOfStep: number[] = [];
  const callerOf = new Map<string, number>();
  let lastAgentAt = -1;
  const messageOfCall: number[] = [];
  const calls: UnitToolCall[] = [];
  const byId = new Map<string, UnitToolCall>();
  let current: string | null = null;
  let lastAgentText = '';
  const push = (step: Record<string, unknown>, at: number, caller = at): void => {
    const agent = (step.agent as string | null) ?? null;
    if (agent !== null && current !== null && agent !== current) {
      steps.push({ type: 'handoff', agent, from: current, start_ms: at });
      messageOfStep.push(at);
      callerOfStep.push(at);
    }
    if (agent !== null) current = agent;
    steps.push(step);
    messageOfStep.push(at);
    callerOfStep.push(caller);
  };
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      const agent = executor ? (m.name ?? null) : null;
      for (const tc of m.tool_calls ?? []) {
        const call: UnitToolCall = { id: tc.id, name: tc.function.name, arguments: tc.function.arguments, result: null, error: null };
        calls.push(call);
        messageOfCall.push(i);
        byId.set(tc.id, call);
        callerOf.set(tc.id, i);
      }
      push({ type: 'model', agent, start_ms: i }, i);
      lastAgentAt = i;
      if (m.content) lastAgentText = m.content;
    } else if (m.role === 'tool') {
      const content = m.content ?? '';
      let call = m.tool_call_id !== undefined ? byId.get(m.tool_call_id) : undefined;
      if (!call && executor !== null && m.name === executor) {
        call = { id: `exec_${i}`, name: executor, arguments: lastAgentText, result: null, error: null };
        callerOf.set(call.id, lastAgentAt);
        calls.push(call);
        messageOfCall.push(i);
      }
      if (!call) return;
      const failed = FAILED_RESULT.test(content);
      call.result = content;
      if (failed) call.error = content;
      push({ type: 'tool', agent: executor ? current : null, name: call.name, call_id: call.id, status: failed ? 'error' : 'ok', ...(failed ? { error: content } : {}), start_ms: i }, i, callerOf.get(call.id) ?? i);
    }
  });
  const unit: FailureUnit = { unit_id: id, agent_name: executor ? 'group' : 'retail-agent', agent_version: null, end_time_ms: 0, errors: [], tool_calls: calls, steps: steps as unknown as FailureUnit['steps'] };
  return { unit, messageOfStep, callerOfStep, messageOfCall };
}
