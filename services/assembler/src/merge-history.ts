import type { ChatMessage } from '../../../shared/schemas/index.ts';

/** Equality key for a message: role, trimmed text, tool calls (name + canonical args) and call id. */
export function messageKey(m: ChatMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => `${c.id}|${c.function.name}|${canonicalJson(c.function.arguments)}`);
  return JSON.stringify([m.role, (m.content ?? '').trim(), calls, m.tool_call_id ?? '']);
}

/** Arguments compare by meaning: `{"a":1}` and `{ "a": 1 }` are the same call. */
function canonicalJson(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text.trim();
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, sortKeys(x)]));
  }
  return v;
}

/**
 * Appends one model call's messages to the dialog so far. Every LLM span repeats the history it
 * was sent, so the longest suffix of `history` that is a prefix of `next` is shared and only what
 * follows it is new. With no overlap (a sub-agent, a trimmed context) the call is appended whole.
 */
export function appendDeduplicated(history: readonly ChatMessage[], next: readonly ChatMessage[]): ChatMessage[] {
  const hKeys = history.map(messageKey);
  let rest = next;
  // A system prompt the dialog already has is re-sent context, not a new turn.
  while (rest.length > 0 && rest[0].role === 'system' && hKeys.includes(messageKey(rest[0]))) rest = rest.slice(1);
  const nKeys = rest.map(messageKey);
  let overlap = 0;
  for (let k = Math.min(hKeys.length, nKeys.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = hKeys[hKeys.length - k + i] === nKeys[i];
    if (same) {
      overlap = k;
      break;
    }
  }
  return [...history, ...rest.slice(overlap)];
}
