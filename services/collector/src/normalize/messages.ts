import type { AudioPart, ChatMessage, ToolCall, ToolDefinition } from '../../../../shared/contracts/schemas/index.ts';
import { audioPart, openAiContentAudio, openAiMessageAudio } from './audio-parts.ts';
import { blocksText, converseBlocks } from './content-blocks.ts';
import { asString, canonicalArguments, contentText, isRecord, parseMaybeJson } from './values.ts';

type Role = ChatMessage['role'];

const ROLE_ALIASES: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
};

/** Maps any role string to the OpenAI chat roles; unknown roles read as user input. */
export function normalizeRole(v: unknown, fallback: Role): Role {
  if (typeof v !== 'string' || v === '') return fallback;
  return ROLE_ALIASES[v.toLowerCase()] ?? 'user';
}

export function toolCall(id: unknown, name: unknown, args: unknown): ToolCall {
  return { id: asString(id) ?? '', type: 'function', function: { name: asString(name) ?? '', arguments: canonicalArguments(args) } };
}

/** Text for a non-text part, so that a judge sees that something was there. */
function placeholder(part: Record<string, unknown>): string | undefined {
  const modality = asString(part.modality) ?? asString(part.type) ?? 'file';
  if (typeof part.uri === 'string') return `[${modality}: ${part.uri}]`;
  if (typeof part.url === 'string') return `[${modality}: ${part.url}]`;
  if (typeof part.file_id === 'string') return `[${modality} file: ${part.file_id}]`;
  const mime = asString(part.mime_type) ?? asString(part.mediaType) ?? asString(part.mimeType);
  return mime ? `[${modality}: ${mime}]` : undefined;
}

function joinText(texts: string[]): string | null {
  return texts.length === 0 ? null : texts.join('\n');
}

export function message(role: Role, content: string | null, extra?: Partial<ChatMessage>): ChatMessage {
  // A turn that only calls tools has null content, as OpenAI sends it, whichever way a library spelled it.
  const onlyCalls = role === 'assistant' && (extra?.tool_calls?.length ?? 0) > 0 && (content === '' || content === 'null');
  // Tool results read the same from every family: JSON text is compacted, a JSON string unwrapped.
  const text = role === 'tool' && typeof content === 'string' ? contentText(content) : content;
  const m: ChatMessage = { role, content: onlyCalls ? null : text };
  if (extra?.name) m.name = extra.name;
  if (extra?.tool_calls && extra.tool_calls.length > 0) m.tool_calls = extra.tool_calls;
  if (extra?.tool_call_id !== undefined) m.tool_call_id = extra.tool_call_id;
  if (extra?.audio && extra.audio.length > 0) m.audio = extra.audio;
  return m;
}

/**
 * One OTel GenAI message `{role, parts[], name?}` → chat messages. A `tool_call_response` part
 * becomes its own `tool` message (OpenAI has one message per tool result).
 */
export function fromOtelMessage(raw: unknown, fallbackRole: Role): ChatMessage[] {
  if (!isRecord(raw)) return [];
  const role = normalizeRole(raw.role, fallbackRole);
  const name = asString(raw.name);
  const parts: unknown[] = Array.isArray(raw.parts) ? raw.parts : raw.content !== undefined ? [{ type: 'text', content: raw.content }] : [];
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  const audio: AudioPart[] = [];
  for (const p of parts) {
    if (typeof p === 'string') {
      texts.push(p);
      continue;
    }
    if (!isRecord(p)) continue;
    switch (p.type) {
      case 'text':
        texts.push(contentText(p.content ?? p.text));
        break;
      case 'tool_call':
        calls.push(toolCall(p.id, p.name, p.arguments));
        break;
      case 'tool_call_response': {
        const response = p.response ?? p.result;
        const blocks = converseBlocks(response);
        results.push(message('tool', blocks ? blocksText(blocks) : contentText(response), { tool_call_id: asString(p.id) ?? '' }));
        break;
      }
      case 'reasoning':
      case 'server_tool_call':
      case 'server_tool_call_response':
        break;
      default: {
        const a = audioPart(p);
        if (a) audio.push(a);
        const ph = placeholder(p);
        if (ph) texts.push(ph);
      }
    }
  }
  const out: ChatMessage[] = [];
  if (texts.length > 0 || calls.length > 0 || audio.length > 0 || results.length === 0) {
    const toolCallId = role === 'tool' ? asString(raw.tool_call_id ?? raw.id) ?? '' : undefined;
    out.push(message(role, joinText(texts), { name, tool_calls: calls, tool_call_id: toolCallId, audio }));
  }
  out.push(...results);
  return out;
}

export function fromOtelMessages(raw: unknown, fallbackRole: Role): ChatMessage[] | undefined {
  const v = parseMaybeJson(raw);
  if (!Array.isArray(v)) return undefined;
  return v.flatMap((m) => fromOtelMessage(parseMaybeJson(m), fallbackRole));
}

/** `gen_ai.system_instructions`: an array of parts (or a plain string) → one system message. */
export function fromSystemInstructions(raw: unknown): ChatMessage | undefined {
  const v = parseMaybeJson(raw);
  if (typeof v === 'string') return message('system', v);
  if (!Array.isArray(v)) return undefined;
  const texts: string[] = [];
  for (const p of v) {
    if (typeof p === 'string') texts.push(p);
    else if (isRecord(p) && (p.type === 'text' || p.type === undefined)) texts.push(contentText(p.content ?? p.text));
  }
  return message('system', joinText(texts));
}

/** OpenAI-style content: a string, or a list of `{type:"text", text}` parts (multimodal lists). */
export function openAiContent(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const blocks = converseBlocks(v);
  if (blocks) return blocksText(blocks);
  if (typeof v === 'string') {
    const parsed = parseMaybeJson(v);
    if (Array.isArray(parsed) && parsed.every((p) => isRecord(p) && typeof p.type === 'string')) return openAiContent(parsed);
    return v;
  }
  if (Array.isArray(v)) {
    const texts: string[] = [];
    for (const p of v) {
      if (typeof p === 'string') texts.push(p);
      else if (isRecord(p)) {
        if (typeof p.text === 'string') texts.push(p.text);
        else if (typeof p.content === 'string') texts.push(p.content);
        else if (isRecord(p.image_url) && typeof p.image_url.url === 'string') texts.push(`[image: ${p.image_url.url}]`);
        else {
          const ph = placeholder(p);
          if (ph) texts.push(ph);
        }
      }
    }
    return joinText(texts);
  }
  return contentText(v);
}

/** `[{id, type, function:{name, arguments}}]` (OpenAI) or `[{id, name, arguments}]`. */
export function openAiToolCalls(v: unknown): ToolCall[] {
  const list = parseMaybeJson(v);
  if (!Array.isArray(list)) return [];
  const out: ToolCall[] = [];
  for (const raw of list) {
    const c = parseMaybeJson(raw);
    if (!isRecord(c)) continue;
    const fn = isRecord(c.function) ? c.function : c;
    out.push(toolCall(c.id, fn.name, fn.arguments ?? fn.args ?? fn.input));
  }
  return out;
}

/** An OpenAI chat message (also the legacy `gen_ai.prompt` JSON) → chat message. */
export function fromOpenAiMessage(raw: unknown, fallbackRole: Role): ChatMessage | undefined {
  const m = parseMaybeJson(raw);
  if (!isRecord(m)) return undefined;
  const role = normalizeRole(m.role, fallbackRole);
  const output = openAiMessageAudio(m.audio);
  return message(role, openAiContent(m.content), {
    name: asString(m.name),
    tool_calls: openAiToolCalls(m.tool_calls),
    tool_call_id: asString(m.tool_call_id) ?? (role === 'tool' ? asString(m.id) ?? '' : undefined),
    audio: [...openAiContentAudio(parseMaybeJson(m.content)), ...(output ? [output] : [])],
  });
}

/**
 * A tool definition in any of the shapes the families send: OpenAI `{type, function:{…}}`,
 * flat `{type, name, description?, parameters?}`, AI SDK `inputSchema`. Non-function tools → undefined.
 */
export function toolDefinition(raw: unknown): ToolDefinition | undefined {
  const d = parseMaybeJson(raw);
  if (!isRecord(d)) return undefined;
  if (d.type !== undefined && d.type !== 'function') return undefined;
  const fn = isRecord(d.function) ? d.function : d;
  const name = asString(fn.name);
  if (!name) return undefined;
  const def: ToolDefinition = { type: 'function', function: { name } };
  const description = asString(fn.description);
  if (description) def.function.description = description;
  const params = parseMaybeJson(fn.parameters ?? fn.inputSchema ?? fn.input_schema);
  if (isRecord(params)) {
    // The AI SDK wraps zod-derived schemas as {jsonSchema: {...}}.
    def.function.parameters = isRecord(params.jsonSchema) ? params.jsonSchema : params;
  }
  return def;
}

export function toolDefinitions(raw: unknown): ToolDefinition[] | undefined {
  const v = parseMaybeJson(raw);
  if (!Array.isArray(v)) return undefined;
  const out: ToolDefinition[] = [];
  for (const d of v) {
    const def = toolDefinition(d);
    if (def) out.push(def);
  }
  return out;
}
