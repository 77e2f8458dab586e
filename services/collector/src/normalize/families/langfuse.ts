import type { ChatMessage, TokenUsage } from '../../../../../shared/contracts/schemas/index.ts';
import type { Attributes } from '../../otlp/types.ts';
import { fromOpenAiMessage } from '../messages.ts';
import { asNumber, asString, canonicalArguments, contentText, isRecord, parseMaybeJson, remove, take, takeString } from '../values.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { hasPrefix } from './types.ts';

// The Langfuse SDKs (JS @langfuse/tracing + @langfuse/otel, Python `langfuse`, 4.x and 5.x) write
// one span per observation with `langfuse.observation.*` attributes: its type, input and output as
// the SDK serialised them (JSON text, or the string as given), model, usage and cost details, level
// and status message; trace-level `user.id`, `session.id`, `langfuse.trace.*`, `langfuse.version`,
// `langfuse.release` and `langfuse.environment` on every span. Documented in docs/migrating-from-langfuse.md.

/** Observation type → our operation; `span` (the default type) has none. */
const OPERATION_BY_TYPE: Record<string, string> = {
  generation: 'chat',
  embedding: 'embeddings',
  agent: 'invoke_agent',
  tool: 'execute_tool',
  chain: 'chain',
  retriever: 'retrieval',
  evaluator: 'evaluator',
  guardrail: 'guardrail',
  event: 'event',
};

const TYPE = 'langfuse.observation.type';
const INPUT = 'langfuse.observation.input';
const OUTPUT = 'langfuse.observation.output';

/** Usage detail keys (Langfuse's own, and the OpenAI/Anthropic ones it accepts) → ours. */
const USAGE_KEYS: Array<[keyof TokenUsage, string[]]> = [
  ['input_tokens', ['input', 'prompt_tokens', 'input_tokens']],
  ['output_tokens', ['output', 'completion_tokens', 'output_tokens']],
  ['total_tokens', ['total', 'total_tokens']],
  ['cache_read_input_tokens', ['cache_read_input_tokens', 'input_cached_tokens', 'input_cache_read', 'cached_tokens']],
  ['cache_creation_input_tokens', ['cache_creation_input_tokens', 'input_cache_creation', 'input_cache_write']],
  ['reasoning_tokens', ['reasoning_tokens', 'output_reasoning_tokens', 'output_reasoning']],
];

function usageOf(raw: unknown): TokenUsage | undefined {
  const v = parseMaybeJson(raw);
  if (!isRecord(v)) return undefined;
  const u: TokenUsage = {};
  for (const [ours, theirs] of USAGE_KEYS) {
    for (const key of theirs) {
      const n = asNumber(v[key]);
      if (n !== undefined && n >= 0 && Number.isSafeInteger(n)) {
        u[ours] = n;
        break;
      }
    }
  }
  return Object.keys(u).length > 0 ? u : undefined;
}

/** USD the SDK reported: `total`, else the sum of the parts. */
function costOf(raw: unknown): number | undefined {
  const v = parseMaybeJson(raw);
  if (!isRecord(v)) return undefined;
  const total = asNumber(v.total);
  if (total !== undefined) return Number.isFinite(total) && total >= 0 ? total : undefined;
  const parts = Object.values(v).map(asNumber);
  if (parts.length === 0 || parts.some((n) => n === undefined || !Number.isFinite(n) || n < 0)) return undefined;
  return (parts as number[]).reduce((a, b) => a + b, 0);
}

/**
 * A generation's input or output as chat messages: a message list, `{messages: […]}` (a request
 * body), `{choices: [{message}]}` (a response), one message object, or plain text (the user's
 * prompt, the assistant's answer).
 */
function messagesOf(raw: unknown, role: 'user' | 'assistant'): ChatMessage[] | undefined {
  const v = parseMaybeJson(raw);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v === '' ? undefined : [{ role, content: v }];
  let list: unknown[] | undefined;
  if (Array.isArray(v)) list = v;
  else if (isRecord(v) && Array.isArray(v.messages)) list = v.messages;
  else if (isRecord(v) && Array.isArray(v.choices)) list = v.choices.map((c) => (isRecord(c) ? c.message : undefined));
  else if (isRecord(v) && (typeof v.role === 'string' || 'content' in v || 'tool_calls' in v)) list = [v];
  if (!list) return [{ role, content: contentText(v) }];
  const out = list.flatMap((m) => fromOpenAiMessage(m, role) ?? []);
  return out.length > 0 ? out : undefined;
}

/** Metadata values the Python SDK JSON-encodes (`"\"pro\""`) read as the JS SDK writes them (`pro`). */
function unquoteMetadata(attrs: Attributes): void {
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith('langfuse.trace.metadata.') && !key.startsWith('langfuse.observation.metadata.')) continue;
    const v = parseMaybeJson(attrs[key]);
    if (typeof v === 'string') attrs[key] = v;
  }
}

/** Langfuse observations (`langfuse.observation.type`): steps, messages, usage and cost, the trace's ids and version. */
export const extractLangfuse: FamilyExtractor = (input) => {
  const { attrs, span } = input;
  const type = asString(attrs[TYPE])?.toLowerCase();
  if (!type && !hasPrefix(input, 'langfuse.observation.') && !hasPrefix(input, 'langfuse.trace.')) return undefined;
  remove(attrs, TYPE);
  // The SDK's own bookkeeping (which span it made the trace's root), nothing a user set.
  remove(attrs, 'langfuse.internal.is_app_root');
  remove(attrs, 'langfuse.internal.as_root');
  unquoteMetadata(attrs);
  // Tags are a string array; joined, they can be filtered on like any unit attribute.
  const tags = attrs['langfuse.trace.tags'];
  if (Array.isArray(tags)) attrs['langfuse.trace.tags'] = tags.filter((t) => typeof t === 'string').join(',');

  const out: FamilyFields = {};
  const operation = type ? OPERATION_BY_TYPE[type] : undefined;
  if (operation) out.operation = operation;
  const level = asString(attrs['langfuse.observation.level']);
  const statusMessage = asString(attrs['langfuse.observation.status_message']);
  // The JS SDK records a failure only as level ERROR (the span's status stays unset): it is the error.
  if (level === 'ERROR' && span.status.code !== 2) span.status = { code: 2, message: statusMessage ?? span.status.message };

  const model = takeString(attrs, 'langfuse.observation.model.name');
  if (model) {
    out.request_model = model;
    out.response_model = model;
  }
  const usage = usageOf(take(attrs, 'langfuse.observation.usage_details'));
  if (usage) out.usage = usage;
  const cost = costOf(take(attrs, 'langfuse.observation.cost_details'));
  if (cost !== undefined) out.cost_usd = cost;

  if (type === 'generation') {
    // An embedding's input is text to embed, not a turn of the dialog: it stays an attribute.
    const inputs = messagesOf(take(attrs, INPUT), 'user');
    const outputs = messagesOf(take(attrs, OUTPUT), 'assistant');
    if (inputs) out.input_messages = inputs;
    if (outputs) out.output_messages = outputs;
  } else if (type === 'tool') {
    out.tool_execution = { name: span.name };
    const args = take(attrs, INPUT);
    const result = take(attrs, OUTPUT);
    if (args !== undefined) out.tool_execution.arguments = canonicalArguments(args);
    if (span.status.code === 2) out.tool_execution.error = span.status.message || statusMessage || 'error';
    else if (result !== undefined) out.tool_execution.result = contentText(parseMaybeJson(result));
  } else if (type === 'agent') {
    out.agent_name = span.name;
  }
  out.agent_name ??= asString(attrs['langfuse.trace.name']);
  const version = asString(attrs['langfuse.version']) ?? asString(attrs['langfuse.release']);
  if (version) out.agent_version = version;
  const conversation = asString(attrs['langfuse.session.id']);
  if (conversation) out.conversation_id = conversation;
  return out;
};
