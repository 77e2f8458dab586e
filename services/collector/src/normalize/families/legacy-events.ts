import type { ChatMessage } from '../../../../../shared/schemas/index.ts';
import { fromOpenAiMessage, message, normalizeRole, openAiContent, openAiToolCalls } from '../messages.ts';
import { asString, isRecord, parseMaybeJson } from '../values.ts';
import type { FamilyExtractor, FamilyFields } from './types.ts';

const ROLE_BY_EVENT: Record<string, ChatMessage['role']> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/**
 * The message carried by one legacy GenAI event (v1.28–v1.36), from a log-record body or, when the
 * event is a span event, from its attributes. Undefined for events that are not message events.
 */
export function legacyEventMessage(
  eventName: string,
  body: unknown,
  attrs: Record<string, unknown>,
): { message: ChatMessage; isOutput: boolean } | undefined {
  const src = isRecord(body) ? body : isRecord(parseMaybeJson(body)) ? (parseMaybeJson(body) as Record<string, unknown>) : attrs;
  const role = ROLE_BY_EVENT[eventName];
  if (role) {
    const m = message(normalizeRole(src.role, role), openAiContent(parseMaybeJson(src.content)), {
      name: asString(src.name),
      tool_calls: openAiToolCalls(src.tool_calls),
      tool_call_id: role === 'tool' ? asString(src.id) ?? asString(src.tool_call_id) ?? '' : undefined,
    });
    if (m.content === null && role !== 'assistant') m.content = '';
    return { message: m, isOutput: false };
  }
  if (eventName === 'gen_ai.choice') {
    const inner = parseMaybeJson(src.message);
    const msg = isRecord(inner) ? inner : {};
    // The YAML puts tool_calls beside `message`, the doc examples inside it: accept both.
    const calls = openAiToolCalls(msg.tool_calls ?? src.tool_calls);
    const m = message(normalizeRole(msg.role, 'assistant'), openAiContent(parseMaybeJson(msg.content)), { tool_calls: calls });
    return { message: m, isOutput: true };
  }
  return undefined;
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

/** Legacy GenAI message events attached to the span itself (some frameworks emit them as span events). */
export const extractLegacySpanEvents: FamilyExtractor = (input) => {
  if (!input.events.some((e) => CONTENT_EVENTS.has(e.name))) return undefined;
  const inputs: ChatMessage[] = [];
  const outputs: ChatMessage[] = [];
  const kept = [];
  for (const e of input.events) {
    if (e.name === 'gen_ai.content.prompt') {
      inputs.push(...openAiList(e.attributes['gen_ai.prompt'], 'user'));
    } else if (e.name === 'gen_ai.content.completion') {
      outputs.push(...openAiList(e.attributes['gen_ai.completion'], 'assistant'));
    } else {
      const parsed = legacyEventMessage(e.name, e.attributes['body'] ?? null, e.attributes);
      if (!parsed) {
        kept.push(e);
        continue;
      }
      (parsed.isOutput ? outputs : inputs).push(parsed.message);
    }
  }
  input.events.length = 0;
  input.events.push(...kept);
  const out: FamilyFields = {};
  if (inputs.length > 0) out.input_messages = inputs;
  if (outputs.length > 0) out.output_messages = outputs;
  return out;
};
