import type { ChatMessage, SpanRecord, UnitToolCall } from '../../../shared/contracts/schemas/index.ts';
import { canonicalJsonText } from '../../../shared/contracts/schemas/index.ts';
import { STATUS_ERROR } from './span-tree.ts';

/** Items by key, each key's in insertion order; `take` removes and returns a key's first. */
function createQueues<T>() {
  const queues = new Map<string, { items: T[]; next: number }>();
  return {
    add(key: string, item: T): void {
      const q = queues.get(key);
      if (q) q.items.push(item);
      else queues.set(key, { items: [item], next: 0 });
    },
    take(key: string): T | undefined {
      const q = queues.get(key);
      return q && q.next < q.items.length ? q.items[q.next++] : undefined;
    },
  };
}

/**
 * Tool results that exist only as tool-execution spans are put into the dialog right after the
 * assistant turn that asked for them, linked by call id (or, without one, by name and arguments).
 */
export function linkToolSpans(history: ChatMessage[], toolSpans: readonly SpanRecord[]): ChatMessage[] {
  const answered = new Set(history.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => m.tool_call_id!));
  // Each tool span waits in one queue, in span order: by its call id, or (without one) by its name.
  const byCallId = createQueues<SpanRecord>();
  const byName = createQueues<SpanRecord>();
  for (const s of toolSpans) {
    const exec = s.genai.tool_execution!;
    if (exec.call_id) byCallId.add(exec.call_id, s);
    else byName.add(exec.name, s);
  }
  const out: ChatMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    out.push(m);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    // Keep results already in the dialog for this turn together, then add the missing ones.
    while (i + 1 < history.length && history[i + 1].role === 'tool') out.push(history[++i]);
    for (const call of m.tool_calls) {
      if (answered.has(call.id)) continue;
      const span = byCallId.take(call.id) ?? byName.take(call.function.name);
      if (!span) continue;
      const exec = span.genai.tool_execution!;
      out.push({ role: 'tool', content: exec.result ?? exec.error ?? null, tool_call_id: call.id, name: exec.name });
      answered.add(call.id);
    }
  }
  return out;
}

/**
 * Each call of the dialog once, with its result; tool spans add their error to the call they ran
 * (by call id, else the next call of that name and arguments not yet claimed: OpenAI Agents SDK
 * function spans and Traceloop tool spans carry no call id). A tool span that matches no call
 * (content capture off for the model calls) is a call of its own.
 */
/** Unclaimed calls of a name a tool span's bare argument is compared with, at most. */
const BARE_ARGUMENT_CANDIDATES = 64;

export function toolCallsOf(history: readonly ChatMessage[], toolSpans: readonly SpanRecord[]): UnitToolCall[] {
  const results = new Map<string, string | null>();
  for (const m of history) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m.content);
  const calls: UnitToolCall[] = [];
  const byId = new Map<string, UnitToolCall>();
  // The calls of a name (and of a name and arguments) in order; `firstUnclaimed` skips claimed ones for good.
  const byName = new Map<string, { calls: UnitToolCall[]; next: number }>();
  const byNameAndArgs = new Map<string, { calls: UnitToolCall[]; next: number }>();
  const claimed = new Set<UnitToolCall>();
  const index = (map: typeof byName, key: string, c: UnitToolCall): void => {
    const list = map.get(key);
    if (list) list.calls.push(c);
    else map.set(key, { calls: [c], next: 0 });
  };
  const firstUnclaimed = (list: { calls: UnitToolCall[]; next: number } | undefined): UnitToolCall | undefined => {
    if (!list) return undefined;
    while (list.next < list.calls.length && claimed.has(list.calls[list.next])) list.next++;
    return list.calls[list.next];
  };
  // A span whose arguments are the bare value of a call's only argument (`Paris` for
  // {"city":"Paris"}): looked for among the next few unclaimed calls of its name, so that a
  // hostile trace of many same-named calls cannot make the matching quadratic.
  const bareArgumentMatch = (list: { calls: UnitToolCall[]; next: number } | undefined, args: string): UnitToolCall | undefined => {
    if (!firstUnclaimed(list)) return undefined;
    for (let i = list!.next, seen = 0; i < list!.calls.length && seen < BARE_ARGUMENT_CANDIDATES; i++) {
      const c = list!.calls[i];
      if (claimed.has(c)) continue;
      seen++;
      if (sameArguments(c.arguments, args)) return c;
    }
    return undefined;
  };
  const add = (c: UnitToolCall): void => {
    calls.push(c);
    byId.set(c.id, c);
    index(byName, c.name, c);
    index(byNameAndArgs, JSON.stringify([c.name, canonicalJsonText(c.arguments)]), c);
  };
  for (const m of history) {
    for (const c of m.tool_calls ?? []) {
      if (byId.has(c.id)) continue;
      add({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: results.get(c.id) ?? null, error: null });
    }
  }
  const copies = new Map<string, number>();
  for (const s of toolSpans) {
    const exec = s.genai.tool_execution!;
    const error = exec.error ?? (s.status.code === STATUS_ERROR ? (s.status.message ?? 'tool span ended with error status') : undefined);
    const target = exec.call_id
      ? byId.get(exec.call_id)
      : exec.arguments === undefined
        ? firstUnclaimed(byName.get(exec.name))
        : (firstUnclaimed(byNameAndArgs.get(JSON.stringify([exec.name, canonicalJsonText(exec.arguments)]))) ?? bareArgumentMatch(byName.get(exec.name), exec.arguments));
    if (target) {
      claimed.add(target);
      if (error) target.error ??= error;
      if (target.result === null && exec.result !== undefined) target.result = exec.result;
      continue;
    }
    // Copies of a span id (a duplicate sent by a faulty or hostile exporter) are calls of their own.
    const copy = (copies.get(s.span_id) ?? 0) + 1;
    copies.set(s.span_id, copy);
    const id = exec.call_id ?? (copy === 1 ? `span:${s.span_id}` : `span:${s.span_id}#${copy}`);
    if (byId.has(id)) continue;
    const own: UnitToolCall = { id, name: exec.name, arguments: exec.arguments ?? '{}', result: exec.result ?? null, error: error ?? null };
    // Its own span has claimed it: another run of the same tool is another call.
    claimed.add(own);
    add(own);
  }
  return calls;
}

/**
 * A tool span's arguments against the call's: the same JSON, or the bare value of the call's only
 * argument (LangChain's TOOL spans record `Paris` for `{"city":"Paris"}`).
 */
function sameArguments(callArgs: string, spanArgs: string): boolean {
  if (canonicalJsonText(callArgs) === canonicalJsonText(spanArgs)) return true;
  try {
    const parsed: unknown = JSON.parse(callArgs);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const values = Object.values(parsed);
    return values.length === 1 && (typeof values[0] === 'string' ? values[0] : JSON.stringify(values[0])) === spanArgs;
  } catch {
    return false;
  }
}

