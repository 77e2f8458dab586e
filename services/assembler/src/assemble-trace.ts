import type { ChatMessage, LogRecordEnvelope, SpanRecord, TokenUsage, ToolDefinition, Unit, UnitToolCall } from '../../../shared/schemas/index.ts';
import { canonicalJsonText } from '../../../shared/schemas/index.ts';
import { appendDeduplicated, linkToolResultsByPosition, restoreCallTurns, unifyItemIds } from './merge-history.ts';
import { isEntrySpan } from './entry-span.ts';

const STATUS_ERROR = 2;

export interface TraceParts {
  traceId: string;
  /** Defaults to the trace id; set for a fragment of spans that came after the trace's unit was gone. */
  unitId?: string;
  spans: readonly SpanRecord[];
  logs: readonly LogRecordEnvelope[];
}

/** Nanosecond decimal string → milliseconds (precision below a millisecond is not needed here). */
export function nanosToMs(nanos: string): number {
  return nanos.length > 6 ? Number(nanos.slice(0, -6)) : 0;
}

function byStart(a: SpanRecord, b: SpanRecord): number {
  const d = BigInt(a.start_time_unix_nano) - BigInt(b.start_time_unix_nano);
  return d === 0n ? 0 : d < 0n ? -1 : 1;
}

function byStartThenEnd(a: SpanRecord, b: SpanRecord): number {
  const d = BigInt(a.start_time_unix_nano) - BigInt(b.start_time_unix_nano);
  if (d !== 0n) return d < 0n ? -1 : 1;
  const e = BigInt(a.end_time_unix_nano) - BigInt(b.end_time_unix_nano);
  return e === 0n ? 0 : e < 0n ? -1 : 1;
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
      events.sort((a, b) => {
        const d = BigInt(a.time_unix_nano) - BigInt(b.time_unix_nano);
        return d !== 0n ? (d < 0n ? -1 : 1) : a.sequence - b.sequence;
      });
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

/**
 * The agent that made each model call, when a trace has several (a handoff, agents as tools): the
 * nearest agent invocation around the call (its own name wins over a library's default name on
 * inner spans), else the nearest span that names an agent. Empty for a single-agent trace: its
 * turns need no names.
 */
function agentsOf(calls: readonly ModelCall[], spans: readonly SpanRecord[]): Map<ModelCall, string> {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const out = new Map<ModelCall, string>();
  for (const c of calls) {
    let named: string | undefined;
    let invoked: string | undefined;
    // Bounded walk: a malicious export can make the parent links a cycle.
    for (let s: SpanRecord | undefined = c.span, hops = 0; s && hops <= spans.length && !invoked; s = byId.get(s.parent_span_id ?? ''), hops++) {
      named ??= s.genai.agent_name;
      if (s.genai.operation === 'invoke_agent') invoked = s.genai.agent_name;
    }
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
  const pending = [...toolSpans];
  const out: ChatMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    out.push(m);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    // Keep results already in the dialog for this turn together, then add the missing ones.
    while (i + 1 < history.length && history[i + 1].role === 'tool') out.push(history[++i]);
    for (const call of m.tool_calls) {
      if (answered.has(call.id)) continue;
      const idx = pending.findIndex((s) => s.genai.tool_execution?.call_id === call.id);
      const at = idx >= 0 ? idx : pending.findIndex((s) => !s.genai.tool_execution?.call_id && s.genai.tool_execution?.name === call.function.name);
      if (at < 0) continue;
      const exec = pending.splice(at, 1)[0].genai.tool_execution!;
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
function toolCallsOf(history: readonly ChatMessage[], toolSpans: readonly SpanRecord[]): UnitToolCall[] {
  const results = new Map<string, string | null>();
  for (const m of history) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m.content);
  const calls: UnitToolCall[] = [];
  const seen = new Set<string>();
  for (const m of history) {
    for (const c of m.tool_calls ?? []) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      calls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments, result: results.get(c.id) ?? null, error: null });
    }
  }
  const claimed = new Set<UnitToolCall>();
  for (const s of toolSpans) {
    const exec = s.genai.tool_execution!;
    const error = exec.error ?? (s.status.code === STATUS_ERROR ? (s.status.message ?? 'tool span ended with error status') : undefined);
    const target = exec.call_id
      ? calls.find((c) => c.id === exec.call_id)
      : calls.find((c) => !claimed.has(c) && c.name === exec.name && (exec.arguments === undefined || sameArguments(c.arguments, exec.arguments)));
    if (target) {
      claimed.add(target);
      if (error) target.error ??= error;
      if (target.result === null && exec.result !== undefined) target.result = exec.result;
      continue;
    }
    const id = exec.call_id ?? `span:${s.span_id}`;
    if (seen.has(id)) continue;
    seen.add(id);
    calls.push({ id, name: exec.name, arguments: exec.arguments ?? '{}', result: exec.result ?? null, error: error ?? null });
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
  const parentOf = new Map(spans.map((s) => [s.span_id, s.parent_span_id]));
  const out = new Set<string>();
  for (const s of inner) {
    // Bounded walk: a malicious export can make the parent links a cycle.
    for (let p = s.parent_span_id, hops = 0; p && hops < spans.length; p = parentOf.get(p), hops++) out.add(p);
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
  const spans = [...parts.spans].sort(byStartThenEnd);
  const ids = new Set(spans.map((s) => s.span_id));
  // The true root, else the first entry span whose parent lives in a caller that exports elsewhere.
  const root = spans.find((s) => !s.parent_span_id) ?? spans.find((s) => isEntrySpan(s) && !ids.has(s.parent_span_id!));
  // The root's own values win; otherwise the earliest span that has one.
  const ordered = root ? [root, ...spans.filter((s) => s !== root)] : spans;

  // Calls that start in the same instant (clock resolution, or a fast local model) are ordered by
  // the history they re-send: a later call carries a longer one.
  const calls = modelCalls(spans, parts.logs).sort((a, b) => byStart(a.span, b.span) || a.input.length - b.input.length || byStartThenEnd(a.span, b.span));
  const speakers = agentsOf(calls, spans);
  let history: ChatMessage[] = [];
  for (const c of calls) {
    const agent = speakers.get(c);
    const output = agent ? c.output.map((m) => (m.role === 'assistant' && !m.name ? { ...m, name: agent } : m)) : c.output;
    history = appendDeduplicated(history, unifyItemIds([...restoreCallTurns(c.input, history), ...output]));
  }
  const toolSpans = spans.filter((s) => s.genai.tool_execution);
  history = linkToolSpans(linkToolResultsByPosition(history), toolSpans);

  const last = calls.at(-1);
  const finalAssistant = [...history].reverse().find((m) => m.role === 'assistant' && m.content !== null && m.content.trim() !== '');
  const tools = new Map<string, ToolDefinition>();
  for (const g of [...spans.map((s) => s.genai), ...parts.logs.flatMap((l) => (l.genai ? [l.genai] : []))]) {
    for (const t of g.tool_definitions ?? []) if (!tools.has(t.function.name)) tools.set(t.function.name, t);
  }

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

  const starts = spans.map((s) => nanosToMs(s.start_time_unix_nano));
  const ends = spans.map((s) => nanosToMs(s.end_time_unix_nano));
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
    tool_calls: toolCallsOf(history, toolSpans),
    tools: [...tools.values()],
    scenario_input: firstDefined(ordered, (s) => s.genai.scenario_input),
    scenario_result: firstDefined(ordered, (s) => s.genai.scenario_result),
    simulation_id: firstDefined(ordered, (s) => s.genai.simulation_id),
    simulation_message_history: null,
    usage: sumUsage(spans),
    errors,
    truncated: spans.some((s) => s.genai.truncated === true || s.dropped_attributes_count > 0),
    span_count: spans.length,
    start_time_ms: starts.length ? Math.min(...starts) : assembledAtMs,
    end_time_ms: ends.length ? Math.max(...ends) : assembledAtMs,
    assembled_at_ms: assembledAtMs,
    attributes: unitAttributes(root ?? spans[0]),
    ...(spans.some((s) => s.genai.session_end === true) ? { session_end: true } : {}),
    ...(spans.some((s) => s.genai.simulation_record === true) ? { simulation_record: true } : {}),
    ...(project !== null ? { project } : {}),
  };
}
