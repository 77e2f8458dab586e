import type { ChatMessage, TokenUsage } from '../../../../../shared/contracts/schemas/index.ts';
import { fromOtelMessages, fromSystemInstructions, toolDefinitions } from '../messages.ts';
import { canonicalArguments, contentText, isRecord, parseMaybeJson, take, takeNumber, takeParsed, takeString } from '../values.ts';
import { AGENTS_SDK_SCOPE, readAgentsSdkReprs } from './agents-sdk-reprs.ts';
import { editionOf, takeCacheWrite, takeContentRefs, takeMcp, takeMemory, takeUsageByModality, takeWorkflowName, type ConventionsEdition } from './genai-split.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { spanErrorText } from './types.ts';

const PROVIDER_ALIASES: Record<string, string> = {
  'az.ai.openai': 'azure.ai.openai',
  vertex_ai: 'gcp.vertex_ai',
  gemini: 'gcp.gemini',
};

function normalizeProvider(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const lower = v.toLowerCase();
  // The AI SDK puts its provider id (`openai.chat`, `anthropic.messages`) into gen_ai.system.
  const aiSdk = /^([a-z0-9_-]+)\.(chat|completion|responses|messages|embedding|image|transcription|speech)$/.exec(lower);
  if (aiSdk) return aiSdk[1];
  return PROVIDER_ALIASES[lower] ?? lower;
}

/** gen_ai.usage.* in current and renamed (older) spellings; the edition says which cache-write name wins. */
export function takeGenAiUsage(attrs: Record<string, unknown>, edition: ConventionsEdition = 'unknown'): TokenUsage | undefined {
  const u: TokenUsage = {};
  const input = takeNumber(attrs, 'gen_ai.usage.input_tokens') ?? takeNumber(attrs, 'gen_ai.usage.prompt_tokens');
  const output = takeNumber(attrs, 'gen_ai.usage.output_tokens') ?? takeNumber(attrs, 'gen_ai.usage.completion_tokens');
  const total = takeNumber(attrs, 'gen_ai.usage.total_tokens') ?? takeNumber(attrs, 'llm.usage.total_tokens');
  const cacheRead = takeNumber(attrs, 'gen_ai.usage.cache_read.input_tokens') ?? takeNumber(attrs, 'gen_ai.usage.cache_read_input_tokens');
  const cacheCreation = takeCacheWrite(attrs, edition);
  const reasoning = takeNumber(attrs, 'gen_ai.usage.reasoning.output_tokens') ?? takeNumber(attrs, 'llm.usage.reasoning_tokens');
  // Older OpenLLMetry/AI SDK keys that a span may carry beside the current ones.
  take(attrs, 'gen_ai.usage.prompt_tokens');
  take(attrs, 'gen_ai.usage.completion_tokens');
  if (input !== undefined) u.input_tokens = input;
  if (output !== undefined) u.output_tokens = output;
  if (total !== undefined) u.total_tokens = total;
  else if (input !== undefined && output !== undefined) u.total_tokens = input + output;
  if (cacheRead !== undefined) u.cache_read_input_tokens = cacheRead;
  if (cacheCreation !== undefined) u.cache_creation_input_tokens = cacheCreation;
  if (reasoning !== undefined) u.reasoning_tokens = reasoning;
  return Object.keys(u).length > 0 ? u : undefined;
}

const MODEL_CALLS = new Set(['chat', 'text_completion', 'generate_content', 'responses']);

/**
 * OpenLIT lists the calls of a Responses answer as `name, name` / `call_…, call_…`; the output
 * names them by item id (`fc_…`). Renamed only when both lists agree call by call.
 */
function renameItemIds(messages: ChatMessage[], names: string, callIds: string): void {
  const ids = callIds.split(', ');
  const wanted = names.split(', ');
  const calls = messages.flatMap((m) => m.tool_calls ?? []);
  if (calls.length !== ids.length || calls.some((c, i) => c.function.name !== wanted[i])) return;
  let k = 0;
  for (const m of messages) {
    if (!m.tool_calls) continue;
    m.tool_calls = m.tool_calls.map((c) => {
      const id = ids[k++];
      return c.id.startsWith('fc_') ? { ...c, id } : c;
    });
  }
}

export const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';
const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'] as const;

/**
 * Google ADK in streaming mode records every partial response (`finish_reason: ""`) before the
 * whole one: when a finished message is there, the partials are left out.
 */
function withoutPartials(raw: unknown): unknown {
  const v = parseMaybeJson(raw);
  if (!Array.isArray(v)) return raw;
  const finished = (m: unknown) => isRecord(m) && typeof m.finish_reason === 'string' && m.finish_reason !== '';
  const partial = (m: unknown) => isRecord(m) && m.finish_reason === '';
  return v.some(finished) && v.some(partial) ? v.filter((m) => !partial(m)) : v;
}

/** The content attributes of a model call (on its span or on its operation-details event). */
export function takeOtelContent(attrs: Record<string, unknown>): Pick<FamilyFields, 'input_messages' | 'output_messages' | 'tool_definitions'> {
  const out: Pick<FamilyFields, 'input_messages' | 'output_messages' | 'tool_definitions'> = {};
  const system = takeParsed(attrs, 'gen_ai.system_instructions', fromSystemInstructions);
  const inputMessages = takeParsed(attrs, 'gen_ai.input.messages', (v) => fromOtelMessages(v, 'user'));
  // Some libraries (OpenLIT) copy the system message into gen_ai.system_instructions and keep it
  // in the input messages too: it is one message, not two.
  const repeated = system && inputMessages?.some((m) => m.role === 'system' && m.content === system.content);
  if (system || inputMessages) out.input_messages = [...(system && !repeated ? [system] : []), ...(inputMessages ?? [])];
  const outputMessages = takeParsed(attrs, 'gen_ai.output.messages', (v) => fromOtelMessages(withoutPartials(v), 'assistant'));
  if (outputMessages) out.output_messages = outputMessages;
  const defs = takeParsed(attrs, 'gen_ai.tool.definitions', toolDefinitions);
  if (defs) out.tool_definitions = defs;
  return out;
}

/**
 * A tool span whose content came as messages (Strands Agents, latest semconv: a `tool` message with
 * the `tool_call` part as input, a `tool_call_response` part as output): the call's arguments and result.
 */
function toolMessagesAsCall(attrs: Record<string, unknown>): void {
  const inputs = takeParsed(attrs, 'gen_ai.input.messages', (v) => fromOtelMessages(v, 'tool'));
  const outputs = takeParsed(attrs, 'gen_ai.output.messages', (v) => fromOtelMessages(v, 'tool'));
  const call = inputs?.flatMap((m) => m.tool_calls ?? [])[0];
  const result = outputs?.find((m) => m.role === 'tool' && m.tool_call_id !== undefined);
  if (call && attrs['gen_ai.tool.call.arguments'] === undefined) attrs['gen_ai.tool.call.arguments'] = call.function.arguments;
  if (call?.id && attrs['gen_ai.tool.call.id'] === undefined) attrs['gen_ai.tool.call.id'] = call.id;
  if (result && attrs['gen_ai.tool.call.result'] === undefined) attrs['gen_ai.tool.call.result'] = result.content ?? '';
}

/**
 * OTel GenAI semantic conventions, current (v1.37+) attributes, plus the gen_ai.* model, provider,
 * usage and agent attributes that the other families reuse.
 */
export const extractOtelGenAi: FamilyExtractor = (input) => {
  const { attrs } = input;
  const out: FamilyFields = {};

  const edition = editionOf(input.scope);
  const operation = takeString(attrs, 'gen_ai.operation.name');
  if (operation) out.operation = operation;
  const mcp = takeMcp(attrs, input.span.kind);
  if (mcp) out.mcp = mcp;
  const memory = takeMemory(attrs, operation);
  if (memory) out.memory = memory;
  if (operation === 'invoke_workflow') {
    const workflow = takeWorkflowName(attrs, edition);
    if (workflow) out.workflow_name = workflow;
  }

  // Content may instead ride on `gen_ai.client.inference.operation.details` events (structured
  // attributes); some libraries (Strands Agents) send one event per attribute, so all are merged.
  if (!CONTENT_KEYS.some((k) => attrs[k] !== undefined)) {
    const kept = input.events.filter((e) => {
      if (e.name !== DETAILS_EVENT) return true;
      for (const [k, v] of Object.entries(e.attributes)) if (attrs[k] === undefined) attrs[k] = v;
      return false;
    });
    input.events.splice(0, input.events.length, ...kept);
  }
  // After the merge: an upload hook may put the references on the operation-details event too.
  const refs = takeContentRefs(attrs);
  if (refs) out.content_refs = refs;
  const toolSpan = attrs['gen_ai.tool.name'] !== undefined && (operation === 'execute_tool' || operation === undefined);
  if (toolSpan) toolMessagesAsCall(attrs);

  Object.assign(out, takeOtelContent(attrs));
  if (input.scope.name === AGENTS_SDK_SCOPE) {
    if (out.input_messages) out.input_messages = readAgentsSdkReprs(out.input_messages);
    if (out.output_messages) out.output_messages = readAgentsSdkReprs(out.output_messages);
  }

  const toolName = takeString(attrs, 'gen_ai.tool.name');
  const callId = takeString(attrs, 'gen_ai.tool.call.id');
  const args = take(attrs, 'gen_ai.tool.call.arguments');
  const result = take(attrs, 'gen_ai.tool.call.result');
  if (toolName && out.output_messages && MODEL_CALLS.has(operation ?? '')) {
    // OpenLIT puts the call the model asked for on the model span (gen_ai.tool.name / call.id /
    // args): it is not a tool execution; its call id names a Responses item id (`fc_…`) of that call.
    if (callId) renameItemIds(out.output_messages, toolName, callId);
    take(attrs, 'gen_ai.tool.args');
  } else if (toolName && (operation === 'execute_tool' || operation === undefined || callId !== undefined)) {
    out.tool_execution = { name: toolName };
    if (callId) out.tool_execution.call_id = callId;
    if (args !== undefined) out.tool_execution.arguments = canonicalArguments(args);
    if (result !== undefined) out.tool_execution.result = contentText(result);
    const error = spanErrorText(input);
    if (error) out.tool_execution.error = error;
    if (!out.operation) out.operation = 'execute_tool';
  }
  take(attrs, 'gen_ai.tool.type');
  take(attrs, 'gen_ai.tool.description');

  const requestModel = takeString(attrs, 'gen_ai.request.model');
  const responseModel = takeString(attrs, 'gen_ai.response.model');
  if (requestModel) out.request_model = requestModel;
  if (responseModel) out.response_model = responseModel;
  const provider = normalizeProvider(takeString(attrs, 'gen_ai.provider.name') ?? takeString(attrs, 'gen_ai.system'));
  if (provider) out.provider = provider;
  take(attrs, 'gen_ai.system');

  const usage = takeGenAiUsage(attrs, edition);
  if (usage) out.usage = usage;
  const byModality = takeUsageByModality(attrs);
  if (byModality) out.usage_by_modality = byModality;

  const agentName = takeString(attrs, 'gen_ai.agent.name');
  const agentVersion = takeString(attrs, 'gen_ai.agent.version');
  if (agentName) out.agent_name = agentName;
  if (agentVersion) out.agent_version = agentVersion;
  const conversationId = takeString(attrs, 'gen_ai.conversation.id');
  if (conversationId) out.conversation_id = conversationId;

  return Object.keys(out).length > 0 ? out : undefined;
};
