import type { ChatMessage } from '../../../../../shared/contracts/schemas/index.ts';
import { converseBlocks, readBlocks } from '../content-blocks.ts';
import { fromOpenAiMessage, message, normalizeRole, openAiContent, openAiToolCalls } from '../messages.ts';
import { asString, canonicalArguments, contentText, isRecord, parseMaybeJson } from '../values.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';
import { hasPrefix } from './types.ts';

const ROLE_BY_EVENT: Record<string, ChatMessage['role']> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/**
 * A message whose content is Converse blocks: its text and toolUse calls, then one `tool` message
 * per toolResult block (Strands Agents records tool results so, in `gen_ai.tool.message` events).
 */
function fromBlocks(role: ChatMessage['role'], blocks: Array<Record<string, unknown>>, extra: { name?: string; toolCallId?: string }): ChatMessage[] {
  const read = readBlocks(blocks);
  const { text, calls } = read;
  // Through message(): tool results read the same from every family (JSON text compacted).
  const results = read.results.map((r) => message('tool', r.content, { tool_call_id: r.tool_call_id }));
  if (results.length > 0 && text === null && calls.length === 0) return results;
  const turnRole = role === 'tool' && results.length > 0 ? 'user' : role;
  const m = message(turnRole, text, { name: extra.name, tool_calls: calls, tool_call_id: turnRole === 'tool' ? extra.toolCallId ?? '' : undefined });
  if (m.content === null && turnRole !== 'assistant') m.content = '';
  return [m, ...results];
}

/**
 * The messages carried by one legacy GenAI event (v1.28–v1.36), from a log-record body or, when
 * the event is a span event, from its attributes. Undefined for events that are not message events.
 * One event is one message, except Converse-style content whose tool results become `tool` messages.
 */
function legacyEventMessages(
  eventName: string,
  body: unknown,
  attrs: Record<string, unknown>,
): { messages: ChatMessage[]; isOutput: boolean } | undefined {
  const src = isRecord(body) ? body : isRecord(parseMaybeJson(body)) ? (parseMaybeJson(body) as Record<string, unknown>) : attrs;
  const role = ROLE_BY_EVENT[eventName];
  if (role) {
    const toolCallId = asString(src.id) ?? asString(src.tool_call_id);
    const blocks = converseBlocks(src.content);
    if (blocks) return { messages: fromBlocks(normalizeRole(src.role, role), blocks, { name: asString(src.name), toolCallId }), isOutput: false };
    const m = message(normalizeRole(src.role, role), openAiContent(parseMaybeJson(src.content)), {
      name: asString(src.name),
      tool_calls: openAiToolCalls(src.tool_calls),
      tool_call_id: role === 'tool' ? toolCallId ?? '' : undefined,
    });
    if (m.content === null && role !== 'assistant') m.content = '';
    return { messages: [m], isOutput: false };
  }
  if (eventName === 'gen_ai.choice') {
    const blocks = converseBlocks(src.message);
    if (blocks) return { messages: fromBlocks('assistant', blocks, {}), isOutput: true };
    const inner = parseMaybeJson(src.message);
    const msg = isRecord(inner) ? inner : {};
    // The YAML puts tool_calls beside `message`, the doc examples inside it: accept both.
    const calls = openAiToolCalls(msg.tool_calls ?? src.tool_calls);
    // A plain-text message (not JSON) is the answer itself.
    const content = isRecord(inner) ? openAiContent(parseMaybeJson(msg.content)) : typeof inner === 'string' ? inner : null;
    const m = message(normalizeRole(msg.role, 'assistant'), content, { tool_calls: calls });
    return { messages: [m], isOutput: true };
  }
  return undefined;
}

/** The single message of a legacy event sent as a log record (one record, one message). */
export function legacyEventMessage(eventName: string, body: unknown, attrs: Record<string, unknown>): { message: ChatMessage; isOutput: boolean } | undefined {
  const parsed = legacyEventMessages(eventName, body, attrs);
  return parsed?.messages[0] ? { message: parsed.messages[0], isOutput: parsed.isOutput } : undefined;
}

const CONTENT_EVENTS = new Set([...Object.keys(ROLE_BY_EVENT), 'gen_ai.choice', 'gen_ai.content.prompt', 'gen_ai.content.completion']);

function openAiList(raw: unknown, fallback: ChatMessage['role']): ChatMessage[] {
  const v = parseMaybeJson(raw);
  const list = Array.isArray(v) ? v : isRecord(v) ? [v] : [];
  const out: ChatMessage[] = [];
  for (const item of list) {
    // Completions may be choices ({message:{…}}) rather than messages.
    const m = fromOpenAiMessage(isRecord(item) && isRecord(item.message) ? item.message : item, fallback);
    if (m) out.push(m);
  }
  return out;
}

/**
 * A tool-execution span's own events (Strands Agents): `gen_ai.tool.message` holds the call's
 * arguments, `gen_ai.choice` its result. They are the tool's input and output, not dialog turns.
 */
function toolSpanEvents(input: Parameters<FamilyExtractor>[0]): FamilyFields {
  const exec: NonNullable<FamilyFields['tool_execution']> = { name: input.span.name };
  const kept = input.events.filter((e) => {
    if (e.name === 'gen_ai.tool.message') exec.arguments = canonicalArguments(e.attributes.content);
    else if (e.name === 'gen_ai.choice') {
      const blocks = converseBlocks(e.attributes.message);
      exec.result = blocks ? readBlocks(blocks).text ?? '' : contentText(e.attributes.message);
    } else return true;
    return false;
  });
  input.events.length = 0;
  input.events.push(...kept);
  return { tool_execution: exec };
}

/** Legacy GenAI message events attached to the span itself (some frameworks emit them as span events). */
export const extractLegacySpanEvents: FamilyExtractor = (input) => {
  if (!input.events.some((e) => CONTENT_EVENTS.has(e.name))) return undefined;
  if (hasPrefix(input, 'gen_ai.tool.name')) return toolSpanEvents(input);
  const inputs: ChatMessage[] = [];
  const outputs: ChatMessage[] = [];
  const kept = [];
  for (const e of input.events) {
    if (e.name === 'gen_ai.content.prompt') {
      inputs.push(...openAiList(e.attributes['gen_ai.prompt'], 'user'));
    } else if (e.name === 'gen_ai.content.completion') {
      outputs.push(...openAiList(e.attributes['gen_ai.completion'], 'assistant'));
    } else {
      const parsed = legacyEventMessages(e.name, e.attributes['body'] ?? null, e.attributes);
      if (!parsed) {
        kept.push(e);
        continue;
      }
      (parsed.isOutput ? outputs : inputs).push(...parsed.messages);
    }
  }
  input.events.length = 0;
  input.events.push(...kept);
  const out: FamilyFields = {};
  if (inputs.length > 0) out.input_messages = inputs;
  if (outputs.length > 0) out.output_messages = outputs;
  return out;
};
