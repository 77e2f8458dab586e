import type { ChatMessage, ToolCall, Unit } from '../../contracts/schemas/index.ts';
import type { ContentRefFetcher } from './fetch-content-ref.ts';

// A unit whose messages were recorded by reference, with the dialog of its last model call read
// back: what the uploader wrote is the GenAI conventions' message JSON (`[{role, parts: [{type:
// "text", content} | {type: "tool_call", id, name, arguments} | {type: "tool_call_response", id,
// response}]}]`, system instructions as a list of parts), or OpenAI-style `{role, content}`.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? null));
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function fromParts(role: ChatMessage['role'], parts: unknown[]): ChatMessage[] {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const p of parts) {
    if (!isRecord(p)) continue;
    if (p.type === 'text') texts.push(text(p.content));
    else if (p.type === 'tool_call') calls.push({ id: text(p.id ?? ''), type: 'function', function: { name: text(p.name ?? ''), arguments: typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {}) } });
    else if (p.type === 'tool_call_response') results.push({ role: 'tool', content: text(p.response ?? p.result), tool_call_id: text(p.id ?? '') });
  }
  if (results.length > 0) return results;
  const m: ChatMessage = { role, content: texts.length > 0 ? texts.join('\n') : null };
  if (calls.length > 0) m.tool_calls = calls;
  return [m];
}

/** Messages of one fetched document; undefined when it is not a message list. */
function refMessages(raw: string, fallback: ChatMessage['role']): ChatMessage[] | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(v)) return undefined;
  // System instructions: a list of parts, no roles.
  if (v.every((p) => isRecord(p) && typeof p.type === 'string' && p.role === undefined)) return fromParts('system', v);
  const out: ChatMessage[] = [];
  for (const m of v) {
    if (!isRecord(m)) return undefined;
    const role = typeof m.role === 'string' && ROLES.has(m.role) ? (m.role as ChatMessage['role']) : fallback;
    if (Array.isArray(m.parts)) out.push(...fromParts(role, m.parts));
    else out.push({ role, content: m.content === undefined || m.content === null ? null : text(m.content) });
  }
  return out;
}

/**
 * The unit with `model_input`, `model_output` and `message_history` read from its last model
 * call's references, or why they could not be (the first failure, or content that is no message list).
 */
export async function withFetchedDialog(unit: Unit, fetchRef: ContentRefFetcher): Promise<{ unit: Unit } | { error: string }> {
  const last = (unit.content_refs ?? []).at(-1);
  if (!last) return { error: 'no reference to fetch' };
  const parts: Partial<Record<'system' | 'input' | 'output', ChatMessage[]>> = {};
  for (const [key, role] of [['system', 'system'], ['input', 'user'], ['output', 'assistant']] as const) {
    const uri = last[key];
    if (uri === undefined) continue;
    const got = await fetchRef(uri);
    if (!got.ok) return { error: got.error };
    const messages = refMessages(got.text, role);
    if (!messages) return { error: `${uri.slice(0, 200)} holds no message list` };
    parts[key] = messages;
  }
  const input = [...(parts.system ?? []), ...(parts.input ?? [])];
  const output = parts.output ?? [];
  const answer = output.filter((m) => m.role === 'assistant' && m.content !== null).at(-1)?.content ?? null;
  return { unit: { ...unit, model_input: input, model_output: answer, message_history: [...input, ...output] } };
}
