import type { ChatMessage } from '../../../../../shared/contracts/schemas/index.ts';
import { asString, contentText, isRecord, parseMaybeJson } from '../values.ts';

// OpenInference spans carry the raw request and response beside the flattened messages
// (`input.value` / `output.value`): OpenAI bodies, or LangChain's serialized constructor objects
// (`{lc, type: "constructor", id: [..., "AIMessage"], kwargs}`). Some instrumentations (LangChain)
// leave the tool-call ids out of the flattened messages; these helpers recover them from the raw I/O.

/** A LangChain serialized object's fields (`kwargs`), or the value itself. */
function fields(raw: unknown): Record<string, unknown> | undefined {
  if (!isRecord(raw)) return undefined;
  if (raw.lc !== undefined && raw.type === 'constructor' && isRecord(raw.kwargs)) return raw.kwargs;
  // `messages_to_dict` form: {type: "tool", data: {content, tool_call_id, …}}.
  if (typeof raw.type === 'string' && isRecord(raw.data) && raw.data.type === raw.type) return raw.data;
  return raw;
}

/** The messages of a raw request: OpenAI `{messages:[…]}` or LangChain `{messages:[[…]]}`. */
export function rawInputMessages(inputValue: unknown): unknown[] | undefined {
  const v = parseMaybeJson(inputValue);
  if (!isRecord(v) || !Array.isArray(v.messages)) return undefined;
  const list: unknown[] = v.messages;
  const first = list[0];
  return Array.isArray(first) ? (first as unknown[]) : list;
}

/** The messages of a raw response: OpenAI `{choices:[{message}]}` or LangChain `{generations:[[{message}]]}`. */
export function rawOutputMessages(outputValue: unknown): unknown[] | undefined {
  const v = parseMaybeJson(outputValue);
  if (!isRecord(v)) return undefined;
  if (Array.isArray(v.choices)) return v.choices.map((c) => (isRecord(c) ? c.message : undefined));
  if (Array.isArray(v.generations) && Array.isArray(v.generations[0])) {
    return (v.generations[0] as unknown[]).map((g) => (isRecord(g) ? g.message : undefined));
  }
  return undefined;
}

function callIds(raw: unknown): string[] {
  const f = fields(raw);
  if (!f) return [];
  const extra = isRecord(f.additional_kwargs) ? f.additional_kwargs : {};
  const list = Array.isArray(f.tool_calls) && f.tool_calls.length > 0 ? f.tool_calls : Array.isArray(extra.tool_calls) ? extra.tool_calls : [];
  return list.map((c) => (isRecord(c) ? asString(c.id) ?? '' : ''));
}

/**
 * Fills empty tool-call ids (and tool_call_ids) of `messages` from the raw messages at the same
 * positions. Only when both lists have the same length: otherwise the positions cannot be trusted.
 */
export function fillMissingIds(messages: ChatMessage[], raw: unknown[] | undefined): void {
  if (!raw || raw.length !== messages.length) return;
  messages.forEach((m, i) => {
    if (m.tool_calls?.some((c) => c.id === '')) {
      const ids = callIds(raw[i]);
      m.tool_calls.forEach((c, j) => {
        if (c.id === '' && ids[j]) c.id = ids[j];
      });
    }
    if (m.role === 'tool' && !m.tool_call_id) {
      const id = asString(fields(raw[i])?.tool_call_id);
      if (id) m.tool_call_id = id;
    }
  });
}

/** A LangChain ToolMessage in a TOOL span's `output.value` (bare or under `output`). */
export function langChainToolMessage(outputValue: unknown): { content: string; callId?: string; error: boolean } | undefined {
  const v = parseMaybeJson(outputValue);
  const candidate = isRecord(v) && isRecord(v.output) ? v.output : v;
  const serialized = isRecord(candidate) && candidate.lc !== undefined && Array.isArray(candidate.id) && candidate.id[candidate.id.length - 1] === 'ToolMessage';
  const asDict = isRecord(candidate) && candidate.type === 'tool' && isRecord(candidate.data);
  if (!serialized && !asDict) return undefined;
  const f = fields(candidate) ?? {};
  return { content: contentText(f.content), callId: asString(f.tool_call_id), error: f.status === 'error' };
}
