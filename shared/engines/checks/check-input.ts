import type { ChatMessage, ToolDefinition, Unit, UnitToolCall } from '../../contracts/schemas/index.ts';
import { ChatMessageSchema, ToolDefinitionSchema } from '../../contracts/schemas/index.ts';
import type { CheckInput } from './contract.ts';
import { audioMessagesOf, audioOutputOf } from './lib/audio.ts';

/** What a check reads from a canonical unit. */
export function unitToCheckInput(unit: Unit): CheckInput {
  return {
    id: unit.unit_id,
    model_output: unit.model_output,
    scenario_input: unit.scenario_input,
    scenario_result: unit.scenario_result,
    model_input: unit.model_input,
    message_history: unit.message_history,
    tool_calls: unit.tool_calls,
    tools: unit.tools,
    simulation_message_history: unit.simulation_message_history,
    audio_messages: audioMessagesOf(unit.message_history),
    audio_output: audioOutputOf(unit.message_history),
  };
}

/** Joins each assistant tool call with its result: by `tool_call_id`, else the next unclaimed result of the same tool. */
export function toolCallsFromMessages(messages: readonly ChatMessage[]): UnitToolCall[] {
  const calls: UnitToolCall[] = [];
  const byId = new Map<string, UnitToolCall>();
  const pendingByName = new Map<string, UnitToolCall[]>();
  for (const m of messages) {
    if (m.role === 'assistant' && m.tool_calls) {
      for (const tc of m.tool_calls) {
        const call: UnitToolCall = { id: tc.id, name: tc.function.name, arguments: tc.function.arguments, result: null, error: null };
        calls.push(call);
        byId.set(tc.id, call);
        const queue = pendingByName.get(call.name) ?? [];
        queue.push(call);
        pendingByName.set(call.name, queue);
      }
    } else if (m.role === 'tool') {
      let call = m.tool_call_id !== undefined ? byId.get(m.tool_call_id) : undefined;
      if (!call && m.name !== undefined) call = pendingByName.get(m.name)?.find((c) => c.result === null);
      if (call && call.result === null) {
        call.result = m.content;
        const queue = pendingByName.get(call.name);
        if (queue) pendingByName.set(call.name, queue.filter((c) => c !== call));
      }
    }
  }
  return calls;
}

/** A record shaped like the eval data: `{id, messages, tools?, scenario_input?, scenario_result?, simulation_messages?}`. */
export interface EvalRecord {
  id: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  scenario_input?: string | null;
  scenario_result?: string | null;
  simulation_messages?: ChatMessage[] | null;
}

function lastAssistantTextIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.content !== null && m.content.trim() !== '') return i;
  }
  return -1;
}

/** What a check reads from an eval record: the final assistant text is the output, what preceded it the input. */
export function recordToCheckInput(record: EvalRecord): CheckInput {
  const messages = record.messages;
  const last = lastAssistantTextIndex(messages);
  return {
    id: record.id,
    model_output: last >= 0 ? messages[last].content : null,
    scenario_input: record.scenario_input ?? null,
    scenario_result: record.scenario_result ?? null,
    model_input: last >= 0 ? messages.slice(0, last) : [...messages],
    message_history: messages,
    tool_calls: toolCallsFromMessages(messages),
    tools: record.tools ?? [],
    simulation_message_history: record.simulation_messages ?? null,
    audio_messages: audioMessagesOf(messages),
    audio_output: audioOutputOf(messages),
  };
}

/** Parses an eval-shaped record, or returns the problems. Extra fields (labels, notes) are ignored. */
export function parseEvalRecord(value: unknown): { ok: true; record: EvalRecord } | { ok: false; error: string } {
  if (!value || typeof value !== 'object') return { ok: false, error: 'record is not an object' };
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' && typeof v.id !== 'number') return { ok: false, error: 'record has no id' };
  const messages = ChatMessageSchema.array().safeParse(v.messages);
  if (!messages.success) return { ok: false, error: `messages: ${messages.error.issues[0]?.message ?? 'invalid'}` };
  const tools = v.tools === undefined || v.tools === null ? { success: true as const, data: [] } : ToolDefinitionSchema.array().safeParse(v.tools);
  if (!tools.success) return { ok: false, error: 'tools: not OpenAI tool definitions' };
  const sim = v.simulation_messages === undefined || v.simulation_messages === null ? { success: true as const, data: null } : ChatMessageSchema.array().safeParse(v.simulation_messages);
  if (!sim.success) return { ok: false, error: 'simulation_messages: invalid messages' };
  const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);
  return {
    ok: true,
    record: {
      id: String(v.id),
      messages: messages.data,
      tools: tools.data,
      scenario_input: str(v.scenario_input),
      scenario_result: str(v.scenario_result),
      simulation_messages: sim.data,
    },
  };
}
