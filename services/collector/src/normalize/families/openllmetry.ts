import type { ChatMessage, ToolCall, ToolDefinition } from '../../../../../shared/contracts/schemas/index.ts';
import { message, normalizeRole, openAiContent, toolCall, toolDefinition } from '../messages.ts';
import { asString, canonicalArguments, contentText, isRecord, parseMaybeJson, subIndexed, take, takeIndexed, takeString } from '../values.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { hasPrefix, spanErrorText } from './types.ts';

function indexedMessages(attrs: Record<string, unknown>, prefix: string, fallback: ChatMessage['role']): ChatMessage[] {
  return takeIndexed(attrs, prefix).map((rec) => {
    const calls: ToolCall[] = subIndexed(rec, 'tool_calls').map((c) => toolCall(c.id, c.name, c.arguments));
    // Older versions put a single function call under function_call.*
    if (rec['function_call.name'] !== undefined) calls.push(toolCall(rec['function_call.id'], rec['function_call.name'], rec['function_call.arguments']));
    const role = normalizeRole(rec.role, fallback);
    // Older releases write a missing content as the string "null".
    const content = rec.content === 'null' ? null : openAiContent(rec.content);
    return message(role, content ?? (typeof rec.refusal === 'string' ? rec.refusal : null), {
      name: asString(rec.name),
      tool_calls: calls,
      tool_call_id: role === 'tool' ? asString(rec.tool_call_id) ?? '' : undefined,
    });
  });
}

function indexedFunctions(attrs: Record<string, unknown>, prefix: string): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const rec of takeIndexed(attrs, prefix)) {
    // openllmetry-js ≤0.22 writes the JSON schema under `.arguments`, Python under `.parameters`.
    const def = toolDefinition({ type: 'function', name: rec.name, description: rec.description, parameters: rec.parameters ?? rec.arguments });
    if (def) out.push(def);
  }
  return out;
}

/**
 * `traceloop.entity.input` of a decorated tool: `{"args":[…],"kwargs":{…}}` (Python) or the raw
 * input (JS). One positional argument or only keyword arguments read as the call's arguments.
 */
function entityArguments(raw: unknown): string {
  const v = parseMaybeJson(raw);
  if (isRecord(v) && ('args' in v || 'kwargs' in v)) {
    const args = Array.isArray(v.args) ? v.args : [];
    const kwargs = isRecord(v.kwargs) ? v.kwargs : {};
    if (args.length === 0) return canonicalArguments(kwargs);
    if (args.length === 1 && Object.keys(kwargs).length === 0) return canonicalArguments(args[0]);
    return canonicalArguments(v);
  }
  return canonicalArguments(v);
}

/** OpenLLMetry (Traceloop): indexed gen_ai.prompt/completion, llm.request.functions, traceloop.*. */
export const extractOpenLlmetry: FamilyExtractor = (input) => {
  const { attrs } = input;
  const hasPrompt = hasPrefix(input, 'gen_ai.prompt.') || hasPrefix(input, 'gen_ai.completion.');
  const hasTraceloop = hasPrefix(input, 'traceloop.') || hasPrefix(input, 'llm.');
  if (!hasPrompt && !hasTraceloop && !hasPrefix(input, 'gen_ai.tool.definitions.')) return undefined;
  const out: FamilyFields = {};

  const inputs = indexedMessages(attrs, 'gen_ai.prompt', 'user');
  const outputs = indexedMessages(attrs, 'gen_ai.completion', 'assistant');
  if (inputs.length > 0) out.input_messages = inputs;
  if (outputs.length > 0) out.output_messages = outputs;
  const defs = [...indexedFunctions(attrs, 'llm.request.functions'), ...indexedFunctions(attrs, 'gen_ai.tool.definitions')];
  if (defs.length > 0) out.tool_definitions = defs;

  const requestType = takeString(attrs, 'llm.request.type');
  const spanKind = takeString(attrs, 'traceloop.span.kind');
  const entityName = takeString(attrs, 'traceloop.entity.name');
  if (requestType) out.operation = requestType === 'completion' ? 'text_completion' : requestType === 'embedding' ? 'embeddings' : requestType;
  if (spanKind === 'agent' && entityName) {
    out.agent_name = entityName;
    out.operation ??= 'invoke_agent';
  }
  if (spanKind === 'workflow') out.operation ??= 'invoke_workflow';
  const entityVersion = takeString(attrs, 'traceloop.entity.version');
  if (spanKind === 'agent' && entityVersion) out.agent_version = entityVersion;

  if (spanKind === 'tool') {
    const name = asString(attrs['gen_ai.tool.name']) ?? entityName ?? input.span.name.replace(/\.tool$/, '');
    const entityInput = take(attrs, 'traceloop.entity.input');
    const entityOutput = take(attrs, 'traceloop.entity.output');
    out.tool_execution = { name };
    const callId = asString(attrs['gen_ai.tool.call.id']);
    if (callId) out.tool_execution.call_id = callId;
    if (entityInput !== undefined) out.tool_execution.arguments = entityArguments(entityInput);
    if (entityOutput !== undefined) out.tool_execution.result = contentText(entityOutput);
    const error = spanErrorText(input);
    if (error) out.tool_execution.error = error;
    out.operation ??= 'execute_tool';
  }

  const sessionId = takeString(attrs, 'traceloop.association.properties.session_id');
  if (sessionId) out.conversation_id = sessionId;
  if (out.input_messages || out.output_messages || out.tool_definitions || out.tool_execution || spanKind || requestType) return out;
  return Object.keys(out).length > 0 ? out : undefined;
};
