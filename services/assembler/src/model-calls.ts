import type { ChatMessage, LogRecordEnvelope, SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import { ancestorsOf, compareNanos } from './span-tree.ts';

export interface ModelCall {
  span: SpanRecord;
  input: ChatMessage[];
  output: ChatMessage[];
  model: string | null;
}

/** The messages one model call was sent and answered: from its attributes, else from its log events. */
export function modelCalls(spans: readonly SpanRecord[], logs: readonly LogRecordEnvelope[]): ModelCall[] {
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
    if (details) {
      // A span may carry only the system instructions (`gen_ai.system_instructions`) while the
      // dialog is on the records (the JS OpenAI instrumentation on the Responses API): the records'
      // messages then make the input, the span's instructions kept where the records lack them.
      const fromDetails = details.input_messages ?? [];
      if (fromDetails.length > 0 && input.every((m) => m.role === 'system')) {
        input = [...input.filter((s) => !fromDetails.some((d) => d.role === s.role && d.content === s.content)), ...fromDetails];
      }
      if (output.length === 0 && details.output_messages?.length) output = details.output_messages;
      if (fromDetails.length > 0 || details.output_messages?.length) model ??= details.response_model ?? details.request_model ?? null;
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

/**
 * The agent that made each model call, when a trace has several (a handoff, agents as tools): the
 * nearest agent invocation around the call (its own name wins over a library's default name on
 * inner spans), else the nearest span that names an agent. Empty for a single-agent trace: its
 * turns need no names.
 */
export function agentsOf(calls: readonly ModelCall[], spans: readonly SpanRecord[]): Map<ModelCall, string> {
  const agentOf = createAgentResolver(spans);
  const out = new Map<ModelCall, string>();
  for (const c of calls) {
    const agent = agentOf(c.span);
    if (agent) out.set(c, agent);
  }
  return new Set(out.values()).size > 1 ? out : new Map<ModelCall, string>();
}

/**
 * The agent a span belongs to: the nearest agent invocation around it (its own name wins over a
 * library's default name on inner spans), else the nearest span that names an agent.
 */
export function createAgentResolver(spans: readonly SpanRecord[]): (span: SpanRecord) => string | undefined {
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
  return (span) => {
    const { named, invoked } = resolve(span);
    return invoked ?? named;
  };
}
