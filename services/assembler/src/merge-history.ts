import { canonicalJsonText, type ChatMessage, type ToolCall } from '../../../shared/schemas/index.ts';

const text = (m: ChatMessage): string => (m.content ?? '').trim();

/**
 * A Responses API item id (`fc_…`): some libraries name a function call by it in one place and by
 * its `call_id` (`call_…`) in another, so it says nothing about which call this is.
 */
export function isItemId(id: string | undefined): boolean {
  return !!id && id.startsWith('fc_');
}

/** Two ids that could name the same call: equal, or either missing or only an item id. */
function compatibleIds(a: string | undefined, b: string | undefined): boolean {
  return !a || !b || a === b || isItemId(a) || isItemId(b);
}

function sameCall(a: ToolCall, b: ToolCall): boolean {
  // Some libraries record no call ids; an id missing on either side does not make calls differ.
  if (!compatibleIds(a.id, b.id)) return false;
  return a.function.name === b.function.name && canonicalJsonText(a.function.arguments) === canonicalJsonText(b.function.arguments);
}

/**
 * Whether two messages are the same turn as two spans recorded it. Libraries copy history lossily
 * (no call ids, an assistant tool-call turn without its calls), so a detail missing on one side
 * is not a difference; a detail present on both sides must agree.
 */
export function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a.role !== b.role || text(a) !== text(b)) return false;
  if (!compatibleIds(a.tool_call_id, b.tool_call_id)) return false;
  const ca = a.tool_calls ?? [];
  const cb = b.tool_calls ?? [];
  if (ca.length > 0 && cb.length > 0) return ca.length === cb.length && ca.every((c, i) => sameCall(c, cb[i]));
  // One side lost the calls: only a turn with no text of its own can be that lossy copy.
  return ca.length === cb.length || text(a) === '';
}

/** Message comparisons an overlap search may make per message it could share, and at least. */
const OVERLAP_BUDGET_PER_MESSAGE = 4;
const OVERLAP_BUDGET_MIN = 64;
/** Earlier system prompts with the same text that a re-sent one is compared with, at most. */
const MAX_SYSTEM_CANDIDATES = 16;

/**
 * The length of the longest suffix of `history` that is a prefix of `next[from…]`. Longest first,
 * each candidate rejected on its last turn before it is compared whole, so a normal re-send costs
 * about twice the shared length. Turns that all look alike except at the far end (a hostile
 * export) could make the search quadratic: past a budget linear in the candidates it stops and
 * the call counts as sharing nothing.
 */
function longestOverlap(history: readonly ChatMessage[], next: readonly ChatMessage[], from: number): number {
  const max = Math.min(history.length, next.length - from);
  let budget = OVERLAP_BUDGET_MIN + OVERLAP_BUDGET_PER_MESSAGE * max;
  for (let k = max; k > 0 && budget > 0; k--) {
    const start = history.length - k;
    budget--;
    if (!sameMessage(history[history.length - 1], next[from + k - 1])) continue;
    let i = 0;
    while (i < k - 1 && sameMessage(history[start + i], next[from + i])) i++;
    budget -= i + 1;
    if (i === k - 1) return k;
  }
  return 0;
}

/**
 * A dialog built call by call, in place: each model call's messages are appended after what the
 * dialog already has. Every LLM span repeats the history it was sent, so the longest suffix of the
 * dialog that is a prefix of the call is shared and only what follows it is new. With no overlap
 * (a sub-agent, a trimmed context) the call is appended whole. Work per call is linear in the call.
 */
export function createDialog(initial: readonly ChatMessage[] = []) {
  const history: ChatMessage[] = [];
  /** Positions of the system prompts by their text (positions never move: the dialog only grows). */
  const systemAt = new Map<string, number[]>();

  function push(m: ChatMessage): void {
    if (m.role === 'system') {
      const key = text(m);
      const at = systemAt.get(key);
      if (at) at.push(history.length);
      else systemAt.set(key, [history.length]);
    }
    history.push(m);
  }
  for (const m of initial) push(m);

  function hasSystem(m: ChatMessage): boolean {
    const at = systemAt.get(text(m)) ?? [];
    for (let i = 0; i < at.length && i < MAX_SYSTEM_CANDIDATES; i++) if (sameMessage(history[at[i]], m)) return true;
    return false;
  }

  function append(next: readonly ChatMessage[]): void {
    // A system prompt the dialog already has is re-sent context, not a new turn.
    let from = 0;
    while (from < next.length && next[from].role === 'system' && hasSystem(next[from])) from++;
    const overlap = longestOverlap(history, next, from);
    // The shared turns keep the better ids: a call id where one copy had only an item id or none.
    for (let i = 0, at = history.length - overlap; i < overlap; i++, at++) history[at] = withIdsOf(history[at], next[from + i]);
    for (let i = from + overlap; i < next.length; i++) push(next[i]);
  }

  return { append, messages: (): ChatMessage[] => history };
}

/** `history` followed by one model call's messages, deduplicated (see createDialog). */
export function appendDeduplicated(history: readonly ChatMessage[], next: readonly ChatMessage[]): ChatMessage[] {
  const dialog = createDialog(history);
  dialog.append(next);
  return dialog.messages();
}

function betterId(mine: string | undefined, theirs: string | undefined): string | undefined {
  return (!mine || isItemId(mine)) && theirs && !isItemId(theirs) ? theirs : mine;
}

function withIdsOf(h: ChatMessage, n: ChatMessage): ChatMessage {
  let out = h;
  const toolCallId = betterId(h.tool_call_id, n.tool_call_id);
  if (toolCallId !== h.tool_call_id) out = { ...out, tool_call_id: toolCallId };
  if (h.tool_calls?.length && h.tool_calls.length === n.tool_calls?.length) {
    const calls = h.tool_calls.map((c, i) => {
      const id = betterId(c.id, n.tool_calls![i].id);
      return id === c.id || id === undefined ? c : { ...c, id };
    });
    if (calls.some((c, i) => c !== h.tool_calls![i])) out = { ...out, tool_calls: calls };
  }
  return out;
}

/**
 * Within one model call's messages, a call named by its Responses item id (`fc_…`) takes the
 * `call_…` id of the result that answers it (the results follow their turn in call order).
 */
export function unifyItemIds(messages: readonly ChatMessage[]): ChatMessage[] {
  if (!messages.some((m) => m.tool_calls?.some((c) => isItemId(c.id)))) return [...messages];
  const out = [...messages];
  for (let i = 0; i < out.length; i++) {
    const m = out[i];
    if (m.role !== 'assistant' || !m.tool_calls?.some((c) => isItemId(c.id))) continue;
    const results: string[] = [];
    for (let j = i + 1; j < out.length && out[j].role === 'tool'; j++) results.push(out[j].tool_call_id ?? '');
    const answered = new Set(results);
    const known = new Set(m.tool_calls.map((c) => c.id));
    const unmatched = results.filter((id) => id && !known.has(id));
    let k = 0;
    const calls = m.tool_calls.map((c) => (isItemId(c.id) && !answered.has(c.id) && k < unmatched.length ? { ...c, id: unmatched[k++] } : c));
    if (k > 0) out[i] = { ...m, tool_calls: calls };
  }
  return out;
}

/**
 * Gives every tool call an id and every tool result the id of its call. Without ids in the source,
 * the k-th result after an assistant turn answers its k-th call (the order OpenAI requires).
 */
export function linkToolResultsByPosition(history: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role !== 'assistant' || !m.tool_calls?.length) {
      out.push(m);
      continue;
    }
    const calls = m.tool_calls.map((c, j) => (c.id ? c : { ...c, id: `call_${i}_${j}` }));
    out.push(calls.some((c, j) => c !== m.tool_calls![j]) ? { ...m, tool_calls: calls } : m);
    const callIds = new Set(calls.map((c) => c.id));
    const answered = new Set<string>();
    let next = 0;
    while (i + 1 < history.length && history[i + 1].role === 'tool') {
      const t = history[++i];
      if (t.tool_call_id && callIds.has(t.tool_call_id)) {
        answered.add(t.tool_call_id);
        out.push(t);
        continue;
      }
      while (next < calls.length && answered.has(calls[next].id)) next++;
      const call = calls[next];
      if (call) answered.add(call.id);
      out.push(call ? { ...t, tool_call_id: call.id } : t);
    }
  }
  return out;
}
