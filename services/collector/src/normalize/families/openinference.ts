import type { ChatMessage, TokenUsage, ToolCall, ToolDefinition } from '../../../../../shared/contracts/schemas/index.ts';
import { message, normalizeRole, toolCall, toolDefinition } from '../messages.ts';
import { asString, canonicalArguments, contentText, isRecord, parseMaybeJson, remove, subIndexed, take, takeIndexed, takeNumber, takeString } from '../values.ts';
import { fillMissingIds, langChainToolMessage, rawInputMessages, rawOutputMessages } from './raw-io.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { hasPrefix, spanErrorText } from './types.ts';

function contents(rec: Record<string, unknown>): string | null {
  const parts = subIndexed(rec, 'message.contents');
  if (parts.length === 0) return null;
  const texts: string[] = [];
  for (const p of parts) {
    const type = p['message_content.type'];
    if (type === 'text' || (type === undefined && typeof p['message_content.text'] === 'string')) texts.push(contentText(p['message_content.text']));
    else if (type === 'image' && typeof p['message_content.image.image.url'] === 'string') texts.push(`[image: ${p['message_content.image.image.url']}]`);
  }
  return texts.length > 0 ? texts.join('\n') : null;
}

function messages(attrs: Record<string, unknown>, prefix: string, fallback: ChatMessage['role']): ChatMessage[] {
  return takeIndexed(attrs, prefix).map((rec) => {
    const calls: ToolCall[] = subIndexed(rec, 'message.tool_calls').map((c) =>
      toolCall(c['tool_call.id'], c['tool_call.function.name'], c['tool_call.function.arguments']),
    );
    if (rec['message.function_call_name'] !== undefined) {
      calls.push(toolCall(undefined, rec['message.function_call_name'], rec['message.function_call_arguments_json']));
    }
    const role = normalizeRole(rec['message.role'], fallback);
    const text = typeof rec['message.content'] === 'string' ? rec['message.content'] : contents(rec);
    return message(role, text, {
      name: asString(rec['message.name']),
      tool_calls: calls,
      tool_call_id: role === 'tool' ? asString(rec['message.tool_call_id']) ?? '' : undefined,
    });
  });
}

function tools(attrs: Record<string, unknown>): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const rec of takeIndexed(attrs, 'llm.tools')) {
    const def = toolDefinition(rec['tool.json_schema']);
    if (def) out.push(def);
  }
  return out;
}

function usage(attrs: Record<string, unknown>): TokenUsage | undefined {
  const u: TokenUsage = {};
  const set = (k: keyof TokenUsage, v: number | undefined): void => {
    if (v !== undefined) u[k] = v;
  };
  set('input_tokens', takeNumber(attrs, 'llm.token_count.prompt'));
  set('output_tokens', takeNumber(attrs, 'llm.token_count.completion'));
  set('total_tokens', takeNumber(attrs, 'llm.token_count.total'));
  set('cache_read_input_tokens', takeNumber(attrs, 'llm.token_count.prompt_details.cache_read'));
  set('cache_creation_input_tokens', takeNumber(attrs, 'llm.token_count.prompt_details.cache_write'));
  set('reasoning_tokens', takeNumber(attrs, 'llm.token_count.completion_details.reasoning'));
  return Object.keys(u).length > 0 ? u : undefined;
}

const OPERATION_BY_KIND: Record<string, string> = {
  LLM: 'chat',
  TOOL: 'execute_tool',
  AGENT: 'invoke_agent',
  CHAIN: 'chain',
  EMBEDDING: 'embeddings',
  RETRIEVER: 'retrieval',
};

const HANDOFF = /^handoff to (.+)$/;

/** The OpenAI Agents SDK's default handoff tool name: `transfer_to_` + the agent's name, snake-cased. */
function handoffToolName(agent: string): string {
  return `transfer_to_${agent.replace(/[^A-Za-z0-9]/g, '_').toLowerCase()}`;
}

/** LlamaIndex's FunctionTool records its call as `{"kwargs": {…}}` (positional `args` empty). */
function llamaIndexKwargs(raw: unknown): Record<string, unknown> | undefined {
  const v = parseMaybeJson(raw);
  if (!isRecord(v) || !isRecord(v.kwargs)) return undefined;
  const keys = Object.keys(v);
  const noArgs = v.args === undefined || (Array.isArray(v.args) && v.args.length === 0);
  return noArgs && keys.every((k) => k === 'kwargs' || k === 'args') ? v.kwargs : undefined;
}

/** LlamaIndex's ToolOutput `{blocks: [{text}], tool_name, raw_output, is_error}`: the text the model is sent. */
function llamaIndexToolOutput(raw: unknown): { text: string; error: boolean } | undefined {
  const v = parseMaybeJson(raw);
  if (!isRecord(v) || !Array.isArray(v.blocks) || typeof v.tool_name !== 'string' || !('raw_output' in v)) return undefined;
  const texts = v.blocks.flatMap((b) => (isRecord(b) && typeof b.text === 'string' ? [b.text] : []));
  return { text: texts.join('\n'), error: v.is_error === true };
}

/** OpenInference (Arize / Phoenix): flattened llm.input_messages/llm.output_messages, llm.tools, TOOL spans. */
export const extractOpenInference: FamilyExtractor = (input) => {
  const { attrs } = input;
  const kind = asString(attrs['openinference.span.kind'])?.toUpperCase();
  if (!kind && !hasPrefix(input, 'llm.input_messages.') && !hasPrefix(input, 'llm.output_messages.')) return undefined;
  remove(attrs, 'openinference.span.kind');
  const out: FamilyFields = {};
  if (kind) out.operation = OPERATION_BY_KIND[kind] ?? kind.toLowerCase();

  // Messages on a CHAIN or AGENT span (LangChain's instrumentation records LangGraph's state
  // there) are the framework's working state, not a model call: they are consumed, not read.
  const modelCall = !kind || kind === 'LLM';
  const inputs = messages(attrs, 'llm.input_messages', 'user');
  const outputs = messages(attrs, 'llm.output_messages', 'assistant');
  if (!modelCall) {
    inputs.length = 0;
    outputs.length = 0;
  }
  if (inputs.length > 0) {
    fillMissingIds(inputs, rawInputMessages(attrs['input.value']));
    out.input_messages = inputs;
  }
  if (outputs.length > 0) {
    fillMissingIds(outputs, rawOutputMessages(attrs['output.value']));
    out.output_messages = outputs;
  }
  if (kind === 'LLM' && (inputs.length > 0 || outputs.length > 0)) {
    // The raw request/response repeat what the messages now hold; dropping them halves the record.
    for (const k of ['input.value', 'input.mime_type', 'output.value', 'output.mime_type']) remove(attrs, k);
  }
  const defs = tools(attrs);
  if (defs.length > 0) out.tool_definitions = defs;

  const model = takeString(attrs, 'llm.request.model_name') ?? takeString(attrs, 'llm.model_name');
  const responseModel = takeString(attrs, 'llm.response.model_name');
  take(attrs, 'llm.model_name');
  if (model) out.request_model = model;
  if (responseModel ?? model) out.response_model = responseModel ?? model;
  const provider = takeString(attrs, 'llm.provider') ?? takeString(attrs, 'llm.system');
  take(attrs, 'llm.system');
  if (provider) out.provider = provider.toLowerCase();
  const u = usage(attrs);
  if (u) out.usage = u;

  if (kind === 'TOOL' && !attrs['tool.name'] && HANDOFF.test(input.span.name)) {
    // The OpenAI Agents SDK's handoff (`handoff to <agent>`, from-agent in, to-agent out): it runs
    // the SDK's `transfer_to_<agent>` call, whose result the dialog already holds.
    out.tool_execution = { name: handoffToolName(HANDOFF.exec(input.span.name)![1]) };
    take(attrs, 'input.value');
    take(attrs, 'output.value');
  } else if (kind === 'TOOL') {
    const name = takeString(attrs, 'tool.name') ?? input.span.name;
    out.tool_execution = { name };
    const callId = takeString(attrs, 'tool.id') ?? takeString(attrs, 'tool_call.id');
    if (callId) out.tool_execution.call_id = callId;
    const args = take(attrs, 'input.value');
    const result = take(attrs, 'output.value');
    take(attrs, 'input.mime_type');
    take(attrs, 'output.mime_type');
    if (args !== undefined) out.tool_execution.arguments = canonicalArguments(llamaIndexKwargs(args) ?? args);
    const toolMessage = langChainToolMessage(result);
    const toolOutput = llamaIndexToolOutput(result);
    if (toolOutput) {
      out.tool_execution.result = toolOutput.text;
      if (toolOutput.error && !spanErrorText(input)) out.tool_execution.error = toolOutput.text;
    } else if (toolMessage) {
      out.tool_execution.result = toolMessage.content;
      if (toolMessage.callId) out.tool_execution.call_id ??= toolMessage.callId;
    } else if (result !== undefined) out.tool_execution.result = contentText(result);
    const error = spanErrorText(input) ?? (toolMessage?.error ? toolMessage.content : undefined);
    if (error) out.tool_execution.error = error;
    take(attrs, 'tool.description');
    take(attrs, 'tool.parameters');
  }

  const agent = takeString(attrs, 'agent.name');
  if (agent) out.agent_name = agent;
  const session = takeString(attrs, 'session.id');
  if (session) out.conversation_id = session;
  return Object.keys(out).length > 0 ? out : undefined;
};
