import type { ChatMessage, ToolCall } from '../../../../../shared/contracts/schemas/index.ts';
import { message, toolCall } from '../messages.ts';
import { parsePythonRepr, type PyValue } from '../python-repr.ts';

/** The instrumentation scope of the OpenAI Agents SDK instrumentations (OpenTelemetry's and Traceloop's). */
export const AGENTS_SDK_SCOPE = 'opentelemetry.instrumentation.openai_agents';

type Piece = { text: string } | { call: ToolCall } | 'skip';

function isObject(v: PyValue | undefined): v is { [key: string]: PyValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One SDK object as the dialog has it: output/input text, a function call, or nothing (reasoning). */
function piece(v: PyValue | undefined): Piece[] | undefined {
  if (!isObject(v)) return undefined;
  const kind = v.__type ?? v.type;
  if (kind === 'ResponseFunctionToolCall' || kind === 'function_call') {
    if (typeof v.name !== 'string' || typeof v.arguments !== 'string') return undefined;
    return [{ call: toolCall(v.call_id ?? v.id, v.name, v.arguments) }];
  }
  if (kind === 'ResponseOutputText' || kind === 'output_text' || kind === 'input_text' || kind === 'text') {
    return typeof v.text === 'string' ? [{ text: v.text }] : undefined;
  }
  if (kind === 'ResponseOutputMessage' && Array.isArray(v.content)) {
    const parts = v.content.map(piece);
    return parts.every((p) => p !== undefined) ? parts.flat() : undefined;
  }
  if (kind === 'ResponseReasoningItem' || kind === 'reasoning') return ['skip'];
  return undefined;
}

/**
 * opentelemetry-instrumentation-openai-agents-v2 0.1.0 writes the SDK's objects as their Python
 * repr where it cannot read them (`ResponseFunctionToolCall(arguments='…', call_id='call_…', …)`,
 * `{'text': '…', 'type': 'output_text', …}`), one text part each. A message all of whose lines are
 * such reprs is read back as the text and tool calls they hold; any other text stays as it is.
 */
export function readAgentsSdkReprs(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role !== 'assistant' || !m.content || m.tool_calls?.length) return m;
    if (!m.content.startsWith('ResponseFunctionToolCall(') && !m.content.startsWith("{'") && !m.content.startsWith('ResponseOutputMessage(')) return m;
    const pieces: Piece[] = [];
    for (const line of m.content.split('\n')) {
      const p = piece(parsePythonRepr(line));
      if (!p) return m;
      pieces.push(...p);
    }
    const texts = pieces.flatMap((p) => (p !== 'skip' && 'text' in p ? [p.text] : []));
    const calls = pieces.flatMap((p) => (p !== 'skip' && 'call' in p ? [p.call] : []));
    return message('assistant', texts.length ? texts.join('\n') : calls.length ? null : '', { name: m.name, tool_calls: calls });
  });
}
