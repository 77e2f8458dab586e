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

/**
 * Appends one model call's messages to the dialog so far. Every LLM span repeats the history it
 * was sent, so the longest suffix of `history` that is a prefix of `next` is shared and only what
 * follows it is new. With no overlap (a sub-agent, a trimmed context) the call is appended whole.
 */
export function appendDeduplicated(history: readonly ChatMessage[], next: readonly ChatMessage[]): ChatMessage[] {
  let rest = next;
  // A system prompt the dialog already has is re-sent context, not a new turn.
  while (rest.length > 0 && rest[0].role === 'system' && history.some((h) => sameMessage(h, rest[0]))) rest = rest.slice(1);
  // A new system prompt before re-sent history: another agent took over the dialog (a handoff).
  // It is placed where that agent's own turns begin: after the dialog so far and the results that
  // answer its last calls (a system message between a call and its result is not a valid dialog).
  let lead = 0;
  while (lead < rest.length && rest[lead].role === 'system') lead++;
  if (lead > 0 && lead < rest.length && history.length > 0) {
    // Whatever the merge shares, it keeps the dialog's length and appends only the new turns.
    const merged = appendDeduplicated(history, rest.slice(lead));
    if (merged.length < history.length + rest.length - lead) {
      let at = history.length;
      while (at < merged.length && merged[at].role === 'tool') at++;
      return [...merged.slice(0, at), ...rest.slice(0, lead), ...merged.slice(at)];
    }
  }
  // The system prompts of agents that took over sit inside the dialog; a re-sent history without
  // system prompts does not have them.
  const view = rest.some((m) => m.role === 'system') ? history.map((_, i) => i) : history.flatMap((m, i) => (m.role === 'system' ? [] : [i]));
  let overlap = 0;
  for (let k = Math.min(view.length, rest.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = sameMessage(history[view[view.length - k + i]], rest[i]);
    if (same) {
      overlap = k;
      break;
    }
  }
  if (overlap === 0) return appendLossyCopy(history, rest);
  // The shared turns keep the better ids: a call id where one copy had only an item id or none.
  const shared = new Map(view.slice(view.length - overlap).map((h, i) => [h, i]));
  return [...history.map((h, i) => (shared.has(i) ? withIdsOf(h, rest[shared.get(i)!]) : h)), ...rest.slice(overlap)];
}

/** An assistant turn that only calls tools, or a tool result. */
function isToolTurn(m: ChatMessage): boolean {
  return m.role === 'tool' || (m.role === 'assistant' && !!m.tool_calls?.length && text(m) === '');
}

/**
 * A call whose re-sent history lost the tool turns (libraries that drop the Responses
 * `function_call` / `function_call_output` items from what they record, so that no tool result
 * is among its messages): when no exact overlap exists, the dialog's last turns with its tool
 * turns left out may be a prefix of the call's messages, provided that prefix holds no tool turns
 * itself and only tool turns follow it in the dialog. Otherwise the call is appended whole.
 */
function appendLossyCopy(history: readonly ChatMessage[], rest: readonly ChatMessage[]): ChatMessage[] {
  let end = history.length;
  while (end > 0 && isToolTurn(history[end - 1])) end--;
  // A copy that has tool results kept its tool turns: it is not this lossy kind.
  if (end === history.length || rest.some((m) => m.role === 'tool')) return [...history, ...rest];
  const kept = history.slice(0, end).filter((m) => !isToolTurn(m));
  for (let k = Math.min(kept.length, rest.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = !isToolTurn(rest[i]) && sameMessage(kept[kept.length - k + i], rest[i]);
    if (same) return [...history, ...rest.slice(k)];
  }
  return [...history, ...rest];
}

/**
 * A model call's input in which a tool result lost the assistant turn that asked for it (OpenLIT
 * drops an assistant message that has no text): the turn is taken back, by call id, from the
 * dialog so far, where an earlier call's output holds it.
 */
export function restoreCallTurns(input: readonly ChatMessage[], history: readonly ChatMessage[]): ChatMessage[] {
  if (!input.some((m) => m.role === 'tool' && m.tool_call_id)) return [...input];
  const out: ChatMessage[] = [];
  // Calls of the last assistant turn not yet answered: a result among them answers that turn
  // (perhaps under another id: a Responses item id), one past them lost its own turn.
  let open = 0;
  for (const m of input) {
    if (m.role !== 'tool') open = m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0;
    else if (open === 0 && m.tool_call_id) {
      const id = m.tool_call_id;
      const turn = history.find((h) => h.role === 'assistant' && h.tool_calls?.some((c) => c.id === id));
      if (turn) {
        out.push(turn);
        open = turn.tool_calls!.length;
      }
    }
    if (m.role === 'tool' && open > 0) open--;
    out.push(m);
  }
  return out;
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
    const known = new Set(m.tool_calls.map((c) => c.id));
    const unmatched = results.filter((id) => id && !known.has(id));
    let k = 0;
    const calls = m.tool_calls.map((c) => (isItemId(c.id) && !results.includes(c.id) && k < unmatched.length ? { ...c, id: unmatched[k++] } : c));
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
    const answered = new Set<string>();
    let next = 0;
    while (i + 1 < history.length && history[i + 1].role === 'tool') {
      const t = history[++i];
      if (t.tool_call_id && calls.some((c) => c.id === t.tool_call_id)) {
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
