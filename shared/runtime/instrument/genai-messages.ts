/**
 * OpenAI chat messages converted to the current OTel GenAI message format (semconv v1.37+):
 * `{role, parts: [{type: "text", content} | {type: "tool_call", id, name, arguments} |
 * {type: "tool_call_response", id, response}]}`.
 */

/** An OpenAI chat message as the `openai` client takes and returns it (only the fields we read). */
export interface OpenAiMessage {
  role: string;
  content?: string | null | ReadonlyArray<{ type: string; text?: string }>;
  name?: string;
  /** Custom (non-function) tool calls have no `function` and are left out. */
  tool_calls?: ReadonlyArray<{ id: string; type?: string; function?: { name: string; arguments: string } }> | null;
  tool_call_id?: string;
}

/** An OpenAI `tools` entry. */
export interface OpenAiTool {
  type: string;
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown };

export interface GenAiMessage {
  role: string;
  parts: GenAiPart[];
  name?: string;
}

export interface GenAiOutputMessage extends GenAiMessage {
  finish_reason: string;
}

export interface GenAiToolDefinition {
  type: 'function';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

function contentText(content: OpenAiMessage['content']): string | null {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return null;
  return content.map((p) => p.text ?? '').join('');
}

/** Tool-call arguments as an object when they are JSON (the convention's preferred form), else as sent. */
function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function toGenAiMessage(message: OpenAiMessage): GenAiMessage {
  const parts: GenAiPart[] = [];
  const text = contentText(message.content);
  if (message.role === 'tool') {
    parts.push({ type: 'tool_call_response', id: message.tool_call_id ?? '', response: text ?? '' });
  } else if (text !== null && text.length > 0) {
    parts.push({ type: 'text', content: text });
  }
  for (const call of message.tool_calls ?? []) {
    if (!call.function) continue;
    parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) });
  }
  const out: GenAiMessage = { role: message.role, parts };
  if (message.name !== undefined) out.name = message.name;
  return out;
}

/** OpenAI finish reasons mapped to the convention's values (`tool_calls` → `tool_call`). */
export function toGenAiFinishReason(reason: string | null | undefined): string {
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_call';
  return reason ?? 'stop';
}

export function toGenAiOutputMessage(message: OpenAiMessage, finishReason: string | null | undefined): GenAiOutputMessage {
  return { ...toGenAiMessage(message), finish_reason: toGenAiFinishReason(finishReason) };
}

/**
 * Splits an OpenAI request history: system (and developer) messages become the system
 * instructions, the rest the input messages, so that readers which prepend the instructions as a
 * system message do not see it twice.
 */
export function splitSystemInstructions(messages: readonly OpenAiMessage[]): { systemInstructions: GenAiPart[]; inputMessages: GenAiMessage[] } {
  const systemInstructions: GenAiPart[] = [];
  const inputMessages: GenAiMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') {
      const text = contentText(m.content);
      if (text !== null) systemInstructions.push({ type: 'text', content: text });
    } else {
      inputMessages.push(toGenAiMessage(m));
    }
  }
  return { systemInstructions, inputMessages };
}

export function toGenAiToolDefinition(tool: OpenAiTool): GenAiToolDefinition {
  const def: GenAiToolDefinition = { type: 'function', name: tool.function.name };
  if (tool.function.description !== undefined) def.description = tool.function.description;
  if (tool.function.parameters !== undefined) def.parameters = tool.function.parameters;
  return def;
}
