import type { ChatMessage, LogRecordEnvelope, ReceivedScope, SpanRecord, UnitReceived } from '../../../shared/contracts/schemas/index.ts';
import { ancestorsOf } from './span-tree.ts';
import { isModelCall } from './unit-steps.ts';

// What a trace's unit was built from, per instrumentation scope: the facts the diagnosis
// (shared/engines/diagnose) reads to say what is missing and which setting of which library
// turns it on. Pure; bounded whatever the trace holds.

const MAX_SCOPES = 20;
const MAX_NAMES = 3;
const MAX_NAME_CHARS = 200;

const cut = (s: string): string => (s.length > MAX_NAME_CHARS ? s.slice(0, MAX_NAME_CHARS) : s);
const hasText = (messages: readonly ChatMessage[] | undefined): boolean => (messages ?? []).some((m) => m.content !== null && m.content.trim() !== '');

interface Tally extends ReceivedScope {
  families: Map<string, number>;
}

/** The unit's `received`: the root, and per scope its spans, log records, model calls with and without content, tool executions with and without results. */
export function receivedOf(spans: readonly SpanRecord[], logs: readonly LogRecordEnvelope[], root: SpanRecord | undefined): UnitReceived {
  const logsBySpan = new Map<string, number>();
  const textBySpan = new Set<string>();
  for (const l of logs) {
    if (!l.span_id) continue;
    logsBySpan.set(l.span_id, (logsBySpan.get(l.span_id) ?? 0) + 1);
    if ((l.message && hasText([l.message])) || hasText(l.genai?.input_messages) || hasText(l.genai?.output_messages)) textBySpan.add(l.span_id);
  }
  const calls = spans.filter(isModelCall);
  // A wrapper that looks like a call (a framework's span around the provider's) is not a call of its own, as in the steps.
  const wrappers = ancestorsOf(calls, spans);
  const byScope = new Map<string, Tally>();
  for (const s of spans) {
    const key = `${s.scope.name}\u0000${s.scope.version ?? ''}`;
    let t = byScope.get(key);
    if (!t) {
      t = { name: cut(s.scope.name), version: s.scope.version ? cut(s.scope.version) : null, family: null, spans: 0, span_names: [], logs: 0, model_calls: 0, model_calls_with_content: 0, tool_executions: 0, tool_executions_with_result: 0, families: new Map() };
      byScope.set(key, t);
    }
    t.spans++;
    const name = cut(s.name);
    if (t.span_names.length < MAX_NAMES && !t.span_names.includes(name)) t.span_names.push(name);
    t.logs += logsBySpan.get(s.span_id) ?? 0;
    if (s.genai.family) t.families.set(s.genai.family, (t.families.get(s.genai.family) ?? 0) + 1);
    const exec = s.genai.tool_execution;
    if (exec) {
      t.tool_executions++;
      if (exec.result !== undefined || exec.error !== undefined) t.tool_executions_with_result++;
    } else if (isModelCall(s) && !wrappers.has(s.span_id)) {
      t.model_calls++;
      if (hasText(s.genai.input_messages) || hasText(s.genai.output_messages) || textBySpan.has(s.span_id)) t.model_calls_with_content++;
    }
  }
  const scopes = [...byScope.values()]
    .sort((a, b) => b.spans - a.spans || a.name.localeCompare(b.name))
    .slice(0, MAX_SCOPES)
    .map(({ families, ...scope }): ReceivedScope => {
      let best: [string, number] | undefined;
      for (const entry of families) if (!best || entry[1] > best[1]) best = entry;
      return { ...scope, family: (best?.[0] as ReceivedScope['family'] | undefined) ?? null };
    });
  const named = root ?? spans[0];
  return {
    root: root === undefined ? 'none' : root.parent_span_id ? 'entry' : 'span',
    root_name: named ? cut(named.name) : null,
    logs: logs.length,
    scopes,
  };
}

const ROOT_ORDER: ReadonlyArray<UnitReceived['root']> = ['span', 'entry', 'none'];

/** A session's `received`: its traces' scopes summed, its root the worst of theirs; undefined when none of them has one (units from before). */
export function mergeReceived(parts: ReadonlyArray<UnitReceived | undefined>): UnitReceived | undefined {
  const known = parts.filter((p): p is UnitReceived => p !== undefined);
  if (known.length === 0) return undefined;
  const byScope = new Map<string, ReceivedScope>();
  for (const p of known) {
    for (const s of p.scopes) {
      const key = `${s.name}\u0000${s.version ?? ''}`;
      const seen = byScope.get(key);
      if (!seen) {
        byScope.set(key, { ...s, span_names: [...s.span_names] });
        continue;
      }
      for (const n of s.span_names) if (seen.span_names.length < MAX_NAMES && !seen.span_names.includes(n)) seen.span_names.push(n);
      seen.family ??= s.family;
      seen.spans += s.spans;
      seen.logs += s.logs;
      seen.model_calls += s.model_calls;
      seen.model_calls_with_content += s.model_calls_with_content;
      seen.tool_executions += s.tool_executions;
      seen.tool_executions_with_result += s.tool_executions_with_result;
    }
  }
  return {
    root: known.reduce<UnitReceived['root']>((worst, p) => (ROOT_ORDER.indexOf(p.root) > ROOT_ORDER.indexOf(worst) ? p.root : worst), 'span'),
    root_name: known[0].root_name,
    logs: known.reduce((n, p) => n + p.logs, 0),
    scopes: [...byScope.values()].sort((a, b) => b.spans - a.spans || a.name.localeCompare(b.name)).slice(0, MAX_SCOPES),
  };
}
