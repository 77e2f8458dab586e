import type { ChatMessage, TokenUsage, ToolCall, ToolDefinition } from '../../../../../shared/contracts/schemas/index.ts';
import { message, normalizeRole, toolCall, toolDefinition } from '../messages.ts';
import { asString, canonicalArguments, contentText, isRecord, parseMaybeJson, take, takeNumber, takeParsed, takeString } from '../values.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { hasPrefix, spanErrorText } from './types.ts';

/** A tool-result output: v5+ `{type: text|json|error-text|error-json|content, value}`, v4 the raw `result`. */
function toolOutputText(part: Record<string, unknown>): string {
  const output = part.output;
  if (isRecord(output) && typeof output.type === 'string' && 'value' in output) {
    if (output.type === 'content' && Array.isArray(output.value)) {
      return output.value.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : contentText(p))).join('\n');
    }
    return contentText(output.value);
  }
  return contentText(output ?? part.result);
}

/** One AI SDK prompt message `{role, content: string | parts[]}` → chat messages. */
function fromAiMessage(raw: unknown): ChatMessage[] {
  const m = parseMaybeJson(raw);
  if (!isRecord(m)) return [];
  const role = normalizeRole(m.role, 'user');
  if (typeof m.content === 'string') return [message(role, m.content)];
  if (!Array.isArray(m.content)) return [message(role, null)];
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const p of m.content) {
    if (!isRecord(p)) continue;
    switch (p.type) {
      case 'text':
        texts.push(contentText(p.text));
        break;
      case 'tool-call':
        calls.push(toolCall(p.toolCallId, p.toolName, p.input ?? p.args));
        break;
      case 'tool-result':
        results.push(message('tool', toolOutputText(p), { tool_call_id: asString(p.toolCallId) ?? '' }));
        break;
      case 'image':
        texts.push(typeof p.image === 'string' && /^https?:/.test(p.image) ? `[image: ${p.image}]` : '[image]');
        break;
      case 'file': {
        const mime = asString(p.mediaType) ?? asString(p.mimeType) ?? 'file';
        texts.push(`[file: ${mime}]`);
        break;
      }
      default:
        break;
    }
  }
  const out: ChatMessage[] = [];
  if (role !== 'tool' || texts.length > 0 || calls.length > 0 || results.length === 0) {
    out.push(message(role === 'tool' ? 'user' : role, texts.length > 0 ? texts.join('\n') : null, { tool_calls: calls }));
  }
  out.push(...results);
  return out;
}

function promptMessages(raw: unknown): ChatMessage[] | undefined {
  const v = parseMaybeJson(raw);
  return Array.isArray(v) ? v.flatMap(fromAiMessage) : undefined;
}

/** `ai.prompt` on the outer span: `{system?, prompt?, messages?}`. */
function outerPrompt(raw: unknown): ChatMessage[] | undefined {
  const v = parseMaybeJson(raw);
  if (!isRecord(v)) return undefined;
  const out: ChatMessage[] = [];
  if (typeof v.system === 'string') out.push(message('system', v.system));
  if (typeof v.prompt === 'string') out.push(message('user', v.prompt));
  else if (Array.isArray(v.prompt)) out.push(...v.prompt.flatMap(fromAiMessage));
  if (Array.isArray(v.messages)) out.push(...v.messages.flatMap(fromAiMessage));
  return out;
}

function responseToolCalls(raw: unknown): ToolCall[] {
  const v = parseMaybeJson(raw);
  if (!Array.isArray(v)) return [];
  return v.filter(isRecord).map((c) => toolCall(c.toolCallId, c.toolName, c.input ?? c.args));
}

function toolDefs(raw: unknown): ToolDefinition[] | undefined {
  const v = parseMaybeJson(raw);
  if (!Array.isArray(v)) return undefined;
  const out: ToolDefinition[] = [];
  for (const t of v) {
    const def = toolDefinition(t);
    if (def) out.push(def);
  }
  return out;
}

function usage(attrs: Record<string, unknown>): TokenUsage | undefined {
  const u: TokenUsage = {};
  const input = takeNumber(attrs, 'ai.usage.inputTokens') ?? takeNumber(attrs, 'ai.usage.promptTokens');
  const output = takeNumber(attrs, 'ai.usage.outputTokens') ?? takeNumber(attrs, 'ai.usage.completionTokens');
  const total = takeNumber(attrs, 'ai.usage.totalTokens');
  const reasoning = takeNumber(attrs, 'ai.usage.reasoningTokens');
  const cached = takeNumber(attrs, 'ai.usage.cachedInputTokens') ?? takeNumber(attrs, 'ai.usage.inputTokenDetails.cacheReadTokens');
  take(attrs, 'ai.usage.promptTokens');
  take(attrs, 'ai.usage.completionTokens');
  if (input !== undefined) u.input_tokens = input;
  if (output !== undefined) u.output_tokens = output;
  if (total !== undefined) u.total_tokens = total;
  else if (input !== undefined && output !== undefined) u.total_tokens = input + output;
  if (reasoning !== undefined) u.reasoning_tokens = reasoning;
  if (cached !== undefined) u.cache_read_input_tokens = cached;
  return Object.keys(u).length > 0 ? u : undefined;
}

function operationOf(operationId: string | undefined): string | undefined {
  if (!operationId) return undefined;
  if (operationId.endsWith('.doGenerate') || operationId.endsWith('.doStream')) return 'chat';
  if (operationId === 'ai.toolCall') return 'execute_tool';
  if (operationId.startsWith('ai.embed')) return 'embeddings';
  if (/^ai\.(generateText|streamText|generateObject|streamObject)$/.test(operationId)) return 'invoke_agent';
  return operationId;
}

/** Vercel AI SDK (v4–v6, v7 LegacyOpenTelemetry): ai.prompt*, ai.response.*, ai.toolCall.*, ai.telemetry.*. */
export const extractVercelAi: FamilyExtractor = (input) => {
  const { attrs } = input;
  if (input.scope.name !== 'ai' && !hasPrefix(input, 'ai.')) return undefined;
  const out: FamilyFields = {};
  const operationId = takeString(attrs, 'ai.operationId');
  const operation = operationOf(operationId);
  if (operation) out.operation = operation;
  take(attrs, 'operation.name');

  const inner = takeParsed(attrs, 'ai.prompt.messages', promptMessages);
  const outer = takeParsed(attrs, 'ai.prompt', outerPrompt);
  const inputs = inner ?? outer;
  if (inputs) out.input_messages = inputs;

  const text = takeString(attrs, 'ai.response.text') ?? takeString(attrs, 'ai.result.text');
  const object = take(attrs, 'ai.response.object') ?? take(attrs, 'ai.result.object');
  const calls = responseToolCalls(take(attrs, 'ai.response.toolCalls') ?? take(attrs, 'ai.result.toolCalls'));
  take(attrs, 'ai.response.reasoning');
  if (text !== undefined || object !== undefined || calls.length > 0) {
    const content = text ?? (object !== undefined ? contentText(object) : null);
    out.output_messages = [message('assistant', content, { tool_calls: calls })];
  }
  take(attrs, 'ai.response.finishReason');
  take(attrs, 'ai.finishReason');

  const defs = takeParsed(attrs, 'ai.prompt.tools', toolDefs);
  if (defs) out.tool_definitions = defs;
  take(attrs, 'ai.prompt.toolChoice');

  const toolName = takeString(attrs, 'ai.toolCall.name');
  if (toolName || operationId === 'ai.toolCall') {
    out.tool_execution = { name: toolName ?? '' };
    const callId = takeString(attrs, 'ai.toolCall.id');
    if (callId) out.tool_execution.call_id = callId;
    const args = take(attrs, 'ai.toolCall.args') ?? take(attrs, 'ai.toolCall.input');
    const result = take(attrs, 'ai.toolCall.result') ?? take(attrs, 'ai.toolCall.output');
    if (args !== undefined) out.tool_execution.arguments = canonicalArguments(args);
    if (result !== undefined) out.tool_execution.result = contentText(result);
    const error = spanErrorText(input);
    if (error) out.tool_execution.error = error;
  }

  const model = takeString(attrs, 'ai.model.id');
  if (model) out.request_model = model;
  const responseModel = takeString(attrs, 'ai.response.model');
  if (responseModel) out.response_model = responseModel;
  const provider = takeString(attrs, 'ai.model.provider');
  // `openai.chat`, `anthropic.messages`: the part before the dot is the provider.
  if (provider) out.provider = provider.split('.')[0].toLowerCase();
  const u = usage(attrs);
  if (u) out.usage = u;

  const functionId = takeString(attrs, 'ai.telemetry.functionId');
  if (functionId) out.agent_name = functionId;
  take(attrs, 'resource.name');
  const metaAgent = takeString(attrs, 'ai.telemetry.metadata.agent');
  if (metaAgent) out.agent_name = metaAgent;
  // v4–v6 put telemetry metadata under ai.telemetry.metadata.*, v7's legacy integration under
  // ai.settings.context.* (ai.settings.runtimeContext.* in some releases).
  const session =
    takeString(attrs, 'ai.telemetry.metadata.sessionId') ??
    takeString(attrs, 'ai.telemetry.metadata.conversationId') ??
    takeString(attrs, 'ai.settings.context.sessionId') ??
    takeString(attrs, 'ai.settings.context.conversationId') ??
    takeString(attrs, 'ai.settings.runtimeContext.sessionId') ??
    takeString(attrs, 'ai.settings.runtimeContext.conversationId');
  if (session) out.conversation_id = session;
  const agentVersion = takeString(attrs, 'ai.telemetry.metadata.agentVersion') ?? takeString(attrs, 'ai.settings.context.agentVersion');
  if (agentVersion) out.agent_version = agentVersion;
  return Object.keys(out).length > 0 ? out : undefined;
};
