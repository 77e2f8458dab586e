import { canonicalJsonText, type ChatMessage, type ToolCall } from '../../../shared/contracts/schemas/index.ts';

const text = (m: ChatMessage): string => (m.content ?? '').trim();

/**
 * A Responses API item id (`fc_…`): some libraries name a function call by it in one place and by
 * its `call_id` (`call_…`) in another, so it says nothing about which call this is.
 */
function isItemId(id: string | undefined): boolean {
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
function longestOverlap(at: (i: number) => ChatMessage, length: number, next: readonly ChatMessage[], from: number): number {
  const max = Math.min(length, next.length - from);
  let budget = OVERLAP_BUDGET_MIN + OVERLAP_BUDGET_PER_MESSAGE * max;
  for (let k = max; k > 0 && budget > 0; k--) {
    const start = length - k;
    budget--;
    if (!sameMessage(at(length - 1), next[from + k - 1])) continue;
    let i = 0;
    while (i < k - 1 && sameMessage(at(start + i), next[from + i])) i++;
    budget -= i + 1;
    if (i === k - 1) return k;
  }
  return 0;
}

/** An assistant turn that only calls tools, or a tool result. */
function isToolTurn(m: ChatMessage): boolean {
  return m.role === 'tool' || (m.role === 'assistant' && !!m.tool_calls?.length && text(m) === '');
}

/** How a model call's messages meet the dialog: turns shared exactly, turns shared by a lossy copy, or none. */
type Meeting = { shared: number; lossy: boolean; view: (i: number) => number; viewLength: number };

/**
 * A dialog built call by call, in place: each model call's messages are appended after what the
 * dialog already has. Every LLM span repeats the history it was sent, so the longest suffix of the
 * dialog that is a prefix of the call is shared and only what follows it is new. With no overlap
 * (a sub-agent, a trimmed context) the call is appended whole. Work per call is linear in the call
 * (searches are budgeted), so a hostile history cannot make assembly quadratic.
 */
export function createDialog(initial: readonly ChatMessage[] = []) {
  const history: ChatMessage[] = [];
  /** Positions of the system prompts by their text (positions never move: the dialog only grows). */
  const systemAt = new Map<string, number[]>();
  /** Positions of the turns that are not system prompts, in order. */
  const nonSystem: number[] = [];
  /** The first assistant turn that made each call, by call id. */
  const callTurns = new Map<string, ChatMessage>();

  function remember(m: ChatMessage): void {
    for (const c of m.tool_calls ?? []) if (c.id && !callTurns.has(c.id)) callTurns.set(c.id, m);
  }
  function push(m: ChatMessage): void {
    if (m.role === 'system') {
      const key = text(m);
      const at = systemAt.get(key);
      if (at) at.push(history.length);
      else systemAt.set(key, [history.length]);
    } else nonSystem.push(history.length);
    if (m.role === 'assistant') remember(m);
    history.push(m);
  }
  for (const m of initial) push(m);

  function hasSystem(m: ChatMessage): boolean {
    const at = systemAt.get(text(m)) ?? [];
    for (let i = 0; i < at.length && i < MAX_SYSTEM_CANDIDATES; i++) if (sameMessage(history[at[i]], m)) return true;
    return false;
  }

  /**
   * A copy that lost its tool turns (libraries that drop the Responses `function_call` /
   * `function_call_output` items, so no tool result is among its messages): when no exact overlap
   * exists, the dialog's last turns with the tool turns left out may be a prefix of the call's
   * messages, provided that prefix holds no tool turns and only tool turns follow it in the dialog.
   */
  function lossyOverlap(next: readonly ChatMessage[], from: number): number {
    let budget = OVERLAP_BUDGET_MIN + OVERLAP_BUDGET_PER_MESSAGE * (next.length - from);
    let end = history.length;
    while (end > 0 && isToolTurn(history[end - 1]) && budget-- > 0) end--;
    if (end === history.length || budget <= 0) return 0;
    for (let i = from; i < next.length; i++) if (next[i].role === 'tool') return 0;
    // Only the last (call length) turns that are not tool turns can take part.
    const kept: ChatMessage[] = [];
    for (let i = end - 1; i >= 0 && kept.length < next.length - from && budget-- > 0; i--) if (!isToolTurn(history[i])) kept.push(history[i]);
    kept.reverse();
    for (let k = Math.min(kept.length, next.length - from); k > 0 && budget > 0; k--) {
      let i = 0;
      while (i < k && budget-- > 0 && !isToolTurn(next[from + i]) && sameMessage(kept[kept.length - k + i], next[from + i])) i++;
      if (i === k) return k;
    }
    return 0;
  }

  function meet(next: readonly ChatMessage[], from: number): Meeting {
    // The system prompts of agents that took over sit inside the dialog; a re-sent history without
    // system prompts does not have them.
    let withSystem = false;
    for (let i = from; i < next.length && !withSystem; i++) withSystem = next[i].role === 'system';
    const view = withSystem ? (i: number): number => i : (i: number): number => nonSystem[i];
    const viewLength = withSystem ? history.length : nonSystem.length;
    const shared = longestOverlap((i) => history[view(i)], viewLength, next, from);
    if (shared > 0) return { shared, lossy: false, view, viewLength };
    const lossy = lossyOverlap(next, from);
    return { shared: lossy, lossy: lossy > 0, view, viewLength };
  }

  /** Commits a meeting: the shared turns keep the better ids, the rest is appended (with `prompts` where a new agent's own turns begin). */
  function commit(meeting: Meeting, next: readonly ChatMessage[], from: number, prompts: readonly ChatMessage[] = []): void {
    if (!meeting.lossy) {
      // The shared turns keep the better ids: a call id where one copy had only an item id or none.
      for (let i = 0; i < meeting.shared; i++) {
        const at = meeting.view(meeting.viewLength - meeting.shared + i);
        history[at] = withIdsOf(history[at], next[from + i]);
        if (history[at].role === 'assistant') remember(history[at]);
      }
    }
    let i = from + meeting.shared;
    // A system message between a call and its result is not a valid dialog: the new agent's
    // prompts follow the results that answer the last calls.
    if (prompts.length > 0) {
      while (i < next.length && next[i].role === 'tool') push(next[i++]);
      for (const p of prompts) push(p);
    }
    for (; i < next.length; i++) push(next[i]);
  }

  function append(next: readonly ChatMessage[]): void {
    // A system prompt the dialog already has is re-sent context, not a new turn.
    let from = 0;
    while (from < next.length && next[from].role === 'system' && hasSystem(next[from])) from++;
    // A new system prompt before re-sent history: another agent took over the dialog (a handoff).
    // It is placed where that agent's own turns begin, when the rest shares turns with the dialog.
    let lead = from;
    while (lead < next.length && next[lead].role === 'system') lead++;
    if (lead > from && lead < next.length && history.length > 0) {
      const meeting = meet(next, lead);
      if (meeting.shared > 0) {
        commit(meeting, next, lead, next.slice(from, lead));
        return;
      }
    }
    commit(meet(next, from), next, from);
  }

  return {
    append,
    messages: (): ChatMessage[] => history,
    /** The assistant turn that made a call, by its id. */
    callTurn: (id: string): ChatMessage | undefined => callTurns.get(id),
  };
}

/** `history` followed by one model call's messages, deduplicated (see createDialog). */
export function appendDeduplicated(history: readonly ChatMessage[], next: readonly ChatMessage[]): ChatMessage[] {
  const dialog = createDialog(history);
  dialog.append(next);
  return dialog.messages();
}

/**
 * A model call's input in which a tool result lost the assistant turn that asked for it (OpenLIT
 * drops an assistant message that has no text): the turn is taken back, by call id, from the
 * dialog so far, where an earlier call's output holds it.
 */
export function restoreCallTurns(input: readonly ChatMessage[], dialog: readonly ChatMessage[] | ((id: string) => ChatMessage | undefined)): ChatMessage[] {
  if (!input.some((m) => m.role === 'tool' && m.tool_call_id)) return [...input];
  const turnOf = typeof dialog === 'function' ? dialog : (id: string): ChatMessage | undefined => dialog.find((h) => h.role === 'assistant' && h.tool_calls?.some((c) => c.id === id));
  const out: ChatMessage[] = [];
  // Calls of the last assistant turn not yet answered: a result among them answers that turn
  // (perhaps under another id: a Responses item id), one past them lost its own turn.
  let open = 0;
  for (const m of input) {
    if (m.role !== 'tool') open = m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0;
    else if (open === 0 && m.tool_call_id) {
      const turn = turnOf(m.tool_call_id);
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
