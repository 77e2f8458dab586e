import type { ChatMessage, LogRecordEnvelope, SpanRecord, TokenUsage, ToolDefinition, Unit, UnitToolCall } from '../../../shared/schemas/index.ts';
import { canonicalJsonText } from '../../../shared/schemas/index.ts';
import { createDialog, linkToolResultsByPosition, restoreCallTurns, unifyItemIds } from './merge-history.ts';
import { isEntrySpan } from './entry-span.ts';

const STATUS_ERROR = 2;

export interface TraceParts {
  traceId: string;
  /** Defaults to the trace id; set for a fragment of spans that came after the trace's unit was gone. */
  unitId?: string;
  spans: readonly SpanRecord[];
  logs: readonly LogRecordEnvelope[];
  /** Spans (and log records) of the trace left out for the per-trace cap: the unit is flagged truncated. */
  dropped?: { spans: number; logs: number; maxSpans: number };
}

/** Nanosecond decimal string → milliseconds (precision below a millisecond is not needed here). */
export function nanosToMs(nanos: string): number {
  return nanos.length > 6 ? Number(nanos.slice(0, -6)) : 0;
}

/** Decimal nanoseconds compared as numbers, without a BigInt per comparison. */
function compareNanos(a: string, b: string): number {
  // Decimal strings of one length compare as text; only leading zeros can make lengths lie.
  if (a.length !== b.length) {
    a = a.replace(/^0+(?=\d)/, '');
    b = b.replace(/^0+(?=\d)/, '');
    if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  }
  return a === b ? 0 : a < b ? -1 : 1;
}

function byStart(a: SpanRecord, b: SpanRecord): number {
  return compareNanos(a.start_time_unix_nano, b.start_time_unix_nano);
}

function byStartThenEnd(a: SpanRecord, b: SpanRecord): number {
  return byStart(a, b) || compareNanos(a.end_time_unix_nano, b.end_time_unix_nano);
}

interface ModelCall {
  span: SpanRecord;
  input: ChatMessage[];
  output: ChatMessage[];
  model: string | null;
}

/** The messages one model call was sent and answered: from its attributes, else from its log events. */
function modelCalls(spans: readonly SpanRecord[], logs: readonly LogRecordEnvelope[]): ModelCall[] {
  const logsBySpan = new Map<string, LogRecordEnvelope[]>();
  for (const l of logs) {
    if (!l.span_id || !l.message) continue;
    const list = logsBySpan.get(l.span_id) ?? [];
    list.push(l);
    logsBySpan.set(l.span_id, list);
  }
  // Current semconv with content captured as events: operation-details records of a model call.
  // Some libraries send one per call, others (the JS OpenAI instrumentation on the Responses API)
  // one with the input and another with the output: the halves are merged, a later part of the
  // same kind replacing an earlier one.
  const detailsBySpan = new Map<string, NonNullable<LogRecordEnvelope['genai']>>();
  for (const l of logs) {
    if (!l.span_id || !l.genai) continue;
    const prev = detailsBySpan.get(l.span_id);
    const g = l.genai;
    detailsBySpan.set(
      l.span_id,
      prev
        ? {
            ...prev,
            ...g,
            ...(g.input_messages?.length ? {} : prev.input_messages ? { input_messages: prev.input_messages } : {}),
            ...(g.output_messages?.length ? {} : prev.output_messages ? { output_messages: prev.output_messages } : {}),
          }
        : g,
    );
  }
  const calls: ModelCall[] = [];
  for (const span of spans) {
    let input = span.genai.input_messages ?? [];
    let output = span.genai.output_messages ?? [];
    let model = span.genai.response_model ?? span.genai.request_model ?? null;
    const details = detailsBySpan.get(span.span_id);
    if (details && input.length === 0 && output.length === 0) {
      input = details.input_messages ?? [];
      output = details.output_messages ?? [];
      model ??= details.response_model ?? details.request_model ?? null;
    }
    const events = logsBySpan.get(span.span_id);
    if (events && input.length === 0 && output.length === 0) {
      events.sort((a, b) => compareNanos(a.time_unix_nano, b.time_unix_nano) || a.sequence - b.sequence);
      input = events.filter((e) => !e.is_output).map((e) => e.message!);
      output = events.filter((e) => e.is_output).map((e) => e.message!);
    }
    if (input.length > 0 || output.length > 0) calls.push({ span, input, output, model });
  }
  // A wrapper (an agent run, `ai.generateText`) repeats the dialog of the model calls inside it;
  // the innermost calls are the real ones.
  const wrappers = ancestorsOf(calls.map((c) => c.span), spans);
  return calls.filter((c) => !wrappers.has(c.span.span_id));
}

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
 * The agent that made each model call, when a trace has several (a handoff, agents as tools): the
 * nearest agent invocation around the call (its own name wins over a library's default name on
 * inner spans), else the nearest span that names an agent. Empty for a single-agent trace: its
 * turns need no names.
 */
function agentsOf(calls: readonly ModelCall[], spans: readonly SpanRecord[]): Map<ModelCall, string> {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  // Per span, the agent names on its way up to the nearest agent invocation; remembered, so that
  // a deep chain of calls is walked once (and a cycle of parent links ends where it closes).
  const memo = new Map<SpanRecord, { named?: string; invoked?: string }>();
  const resolve = (start: SpanRecord): { named?: string; invoked?: string } => {
    const path: SpanRecord[] = [];
    const onPath = new Set<SpanRecord>();
    let s: SpanRecord | undefined = start;
    while (s && !memo.has(s) && !onPath.has(s)) {
      path.push(s);
      onPath.add(s);
      if (s.genai.operation === 'invoke_agent' && s.genai.agent_name) break;
      s = byId.get(s.parent_span_id ?? '');
    }
    let above = (s && memo.get(s)) ?? {};
    for (let i = path.length - 1; i >= 0; i--) {
      const p = path[i];
      above =
        p.genai.operation === 'invoke_agent' && p.genai.agent_name
          ? { named: p.genai.agent_name, invoked: p.genai.agent_name }
          : { named: p.genai.agent_name ?? above.named, invoked: above.invoked };
      memo.set(p, above);
    }
    return above;
  };
  const out = new Map<ModelCall, string>();
  for (const c of calls) {
    const { named, invoked } = resolve(c.span);
    const agent = invoked ?? named;
    if (agent) out.set(c, agent);
  }
  return new Set(out.values()).size > 1 ? out : new Map<ModelCall, string>();
}

/**
 * Tool results that exist only as tool-execution spans are put into the dialog right after the
 * assistant turn that asked for them, linked by call id (or, without one, by name and arguments).
 */
function linkToolSpans(history: ChatMessage[], toolSpans: readonly SpanRecord[]): ChatMessage[] {
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

function toolCallsOf(history: readonly ChatMessage[], toolSpans: readonly SpanRecord[]): UnitToolCall[] {
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

/** Every span that has a descendant among `inner`: a wrapper whose figures repeat its children's. */
function ancestorsOf(inner: readonly SpanRecord[], spans: readonly SpanRecord[]): Set<string> {
  const parentOf = new Map<string, string | undefined>();
  for (const s of spans) if (!parentOf.has(s.span_id)) parentOf.set(s.span_id, s.parent_span_id);
  const out = new Set<string>();
  for (const s of inner) {
    // A walk stops at a span already in the set: its ancestors are in it too. So every span is
    // visited once in all (linear, where a walk per span was quadratic on a deep chain), and a
    // cycle in the parent links (a hostile export) ends the walk.
    for (let p = s.parent_span_id; p && !out.has(p); p = parentOf.get(p)) out.add(p);
  }
  return out;
}

/** Usage is summed over the innermost spans that report it, so a wrapper's total is not counted twice. */
function sumUsage(spans: readonly SpanRecord[]): TokenUsage {
  const withUsage = spans.filter((s) => s.genai.usage && Object.keys(s.genai.usage).length > 0);
  const wrappers = ancestorsOf(withUsage, spans);
  const total: Required<Pick<TokenUsage, 'input_tokens' | 'output_tokens'>> & TokenUsage = { input_tokens: 0, output_tokens: 0 };
  for (const s of withUsage) {
    if (wrappers.has(s.span_id)) continue;
    const u = s.genai.usage!;
    total.input_tokens += u.input_tokens ?? 0;
    total.output_tokens += u.output_tokens ?? 0;
    for (const k of ['cache_read_input_tokens', 'cache_creation_input_tokens', 'reasoning_tokens'] as const) {
      if (u[k] !== undefined) total[k] = (total[k] ?? 0) + u[k];
    }
  }
  return total;
}

function firstDefined<T>(spans: readonly SpanRecord[], pick: (s: SpanRecord) => T | undefined): T | null {
  for (const s of spans) {
    const v = pick(s);
    if (v !== undefined && v !== null && v !== '') return v;
  }
  return null;
}

/** `type` of the unit error that flags a span id sent more than once with different contents. */
const DUPLICATE_SPAN_ID = 'tracecheck.duplicate_span_id';
/** `type` of the unit error that says spans were left out for the per-trace cap. */
const SPAN_LIMIT = 'tracecheck.span_limit';
const MAX_DUPLICATE_ERRORS = 100;

/**
 * Span ids that more than one kept span carries, with their count. The buffer keeps every copy
 * that differs (an exact re-send is dropped there), so two here are two different spans that
 * claim one id: a faulty or hostile exporter. Both count; the unit says so.
 */
function duplicateSpanIds(spans: readonly SpanRecord[]): Array<[string, number]> {
  const count = new Map<string, number>();
  for (const s of spans) count.set(s.span_id, (count.get(s.span_id) ?? 0) + 1);
  const out: Array<[string, number]> = [];
  for (const [id, n] of count) if (n > 1) out.push([id, n]);
  return out;
}

const MAX_ATTRIBUTES = 64;
const MAX_ATTRIBUTE_CHARS = 256;

/** Short scalar attributes of the resource and the root span (the root's win), for monitor filters. */
function unitAttributes(root: SpanRecord | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const attrs of [root?.resource_attributes, root?.attributes]) {
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
      const text = String(v);
      if (text.length > MAX_ATTRIBUTE_CHARS || (!(k in out) && Object.keys(out).length >= MAX_ATTRIBUTES)) continue;
      out[k] = text;
    }
  }
  return out;
}

/**
 * Builds the canonical unit of one trace: the dialog deduplicated across model calls, tool calls
 * joined with their results, and the run's agent, model, usage and errors. Pure.
 */
export function assembleTrace(parts: TraceParts, assembledAtMs: number): Unit {
  const steps = assembleTraceInSteps(parts, assembledAtMs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Model calls merged into the dialog between two pauses of `assembleTraceInSteps`. */
const CALLS_PER_STEP = 1_000;

/**
 * `assembleTrace` as a generator that pauses between its linear passes (and every thousand model
 * calls while the dialog is merged), so that a caller can let the event loop serve others in
 * between: a trace at the span cap is tens of milliseconds of work.
 */
export function* assembleTraceInSteps(parts: TraceParts, assembledAtMs: number): Generator<void, Unit> {
  const spans = [...parts.spans].sort(byStartThenEnd);
  const ids = new Set(spans.map((s) => s.span_id));
  // The true root, else the first entry span whose parent lives in a caller that exports elsewhere.
  const root = spans.find((s) => !s.parent_span_id) ?? spans.find((s) => isEntrySpan(s) && !ids.has(s.parent_span_id!));
  // The root's own values win; otherwise the earliest span that has one.
  const ordered = root ? [root, ...spans.filter((s) => s !== root)] : spans;

  // Calls that start in the same instant (clock resolution, or a fast local model) are ordered by
  // the history they re-send: a later call carries a longer one.
  yield;
  const calls = modelCalls(spans, parts.logs).sort((a, b) => byStart(a.span, b.span) || a.input.length - b.input.length || byStartThenEnd(a.span, b.span));
  const speakers = agentsOf(calls, spans);
  yield;
  const dialog = createDialog();
  for (const [i, c] of calls.entries()) {
    const agent = speakers.get(c);
    const output = agent ? c.output.map((m) => (m.role === 'assistant' && !m.name ? { ...m, name: agent } : m)) : c.output;
    dialog.append(unifyItemIds(restoreCallTurns(c.input, dialog.callTurn).concat(output)));
    if (i % CALLS_PER_STEP === CALLS_PER_STEP - 1) yield;
  }
  const toolSpans = spans.filter((s) => s.genai.tool_execution);
  const history = linkToolSpans(linkToolResultsByPosition(dialog.messages()), toolSpans);
  yield;

  const last = calls.at(-1);
  let finalAssistant: ChatMessage | undefined;
  for (let i = history.length - 1; i >= 0 && !finalAssistant; i--) {
    const m = history[i];
    if (m.role === 'assistant' && m.content !== null && m.content.trim() !== '') finalAssistant = m;
  }
  const tools = new Map<string, ToolDefinition>();
  const addTools = (g: { tool_definitions?: ToolDefinition[] } | undefined): void => {
    for (const t of g?.tool_definitions ?? []) if (!tools.has(t.function.name)) tools.set(t.function.name, t);
  };
  for (const s of spans) addTools(s.genai);
  for (const l of parts.logs) addTools(l.genai);

  const errors: Unit['errors'] = spans
    .filter((s) => s.status.code === STATUS_ERROR)
    .map((s) => {
      const exc = s.events.find((e) => e.name === 'exception');
      const excType = exc?.attributes['exception.type'];
      const excMessage = exc?.attributes['exception.message'];
      const type = typeof s.attributes['error.type'] === 'string' ? (s.attributes['error.type']) : typeof excType === 'string' ? excType : undefined;
      const message = s.status.message || (typeof excMessage === 'string' ? excMessage : '') || `span "${s.name}" ended with error status`;
      return type ? { span_id: s.span_id, type, message } : { span_id: s.span_id, message };
    });
  if (parts.unitId) errors.push({ message: `late spans of trace ${parts.traceId}, which was already scored as unit ${parts.traceId}; scored apart so as not to replace it` });
  else if (!root) errors.push({ message: 'root span never arrived; unit assembled from the spans seen' });
  const duplicates = duplicateSpanIds(spans);
  for (const [spanId, copies] of duplicates.slice(0, MAX_DUPLICATE_ERRORS)) {
    errors.push({ span_id: spanId, type: DUPLICATE_SPAN_ID, message: `span id ${spanId} arrived ${copies} times with different contents; every copy is kept` });
  }
  if (duplicates.length > MAX_DUPLICATE_ERRORS) {
    errors.push({ type: DUPLICATE_SPAN_ID, message: `${duplicates.length - MAX_DUPLICATE_ERRORS} more span ids arrived more than once with different contents; every copy is kept` });
  }
  const dropped = parts.dropped;
  if (dropped && (dropped.spans > 0 || dropped.logs > 0)) {
    errors.push({ type: SPAN_LIMIT, message: `the trace had more records than the limit of ${dropped.maxSpans} spans per trace: ${dropped.spans} spans and ${dropped.logs} log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)` });
  }

  yield;
  const toolCalls = toolCallsOf(history, toolSpans);
  yield;
  const usage = sumUsage(spans);
  yield;
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const s of spans) {
    startMs = Math.min(startMs, nanosToMs(s.start_time_unix_nano));
    endMs = Math.max(endMs, nanosToMs(s.end_time_unix_nano));
  }
  // The ingest key's project; a trace id is random, so spans of one trace come from one project.
  const project = firstDefined(ordered, (s) => s.project);

  return {
    schema_version: 1,
    unit_id: parts.unitId ?? parts.traceId,
    kind: 'trace',
    trace_ids: [parts.traceId],
    // An agent invocation names the agent; other spans may carry a library's default name.
    agent_name: firstDefined(ordered.filter(isEntrySpan), (s) => s.genai.agent_name) ?? firstDefined(ordered, (s) => s.genai.agent_name) ?? firstDefined(ordered, (s) => s.service_name),
    agent_version: firstDefined(ordered, (s) => s.genai.agent_version) ?? firstDefined(ordered, (s) => s.service_version),
    service: firstDefined(ordered, (s) => s.service_name),
    environment: firstDefined(ordered, (s) => s.environment),
    conversation_id: firstDefined(ordered, (s) => s.genai.conversation_id),
    model: last ? last.model : firstDefined(ordered, (s) => s.genai.response_model ?? s.genai.request_model),
    model_input: last ? last.input : [],
    model_output: finalAssistant?.content ?? null,
    message_history: history,
    tool_calls: toolCalls,
    tools: [...tools.values()],
    scenario_input: firstDefined(ordered, (s) => s.genai.scenario_input),
    scenario_result: firstDefined(ordered, (s) => s.genai.scenario_result),
    simulation_id: firstDefined(ordered, (s) => s.genai.simulation_id),
    simulation_message_history: null,
    usage,
    errors,
    truncated: (dropped !== undefined && dropped.spans + dropped.logs > 0) || spans.some((s) => s.genai.truncated === true || s.dropped_attributes_count > 0),
    span_count: spans.length,
    start_time_ms: spans.length ? startMs : assembledAtMs,
    end_time_ms: spans.length ? endMs : assembledAtMs,
    assembled_at_ms: assembledAtMs,
    attributes: unitAttributes(root ?? spans[0]),
    ...(spans.some((s) => s.genai.session_end === true) ? { session_end: true } : {}),
    ...(spans.some((s) => s.genai.simulation_record === true) ? { simulation_record: true } : {}),
    ...(project !== null ? { project } : {}),
  };
}
