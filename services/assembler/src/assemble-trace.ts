import { isEntrySpan, type ChatMessage, type LogRecordEnvelope, type SpanRecord, type ToolDefinition, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDialog, linkToolResultsByPosition, restoreCallTurns, unifyItemIds } from './merge-history.ts';
import { mcpPairs } from './mcp-spans.ts';
import { agentsOf, modelCalls } from './model-calls.ts';
import { byStart, byStartThenEnd, firstDefined, nanosToMs } from './span-tree.ts';
import { linkToolSpans, toolCallsOf } from './tool-calls.ts';
import { contentRefsOf, sumUsage, unitAttributes, unitErrors } from './unit-summary.ts';
import { stepsOf } from './unit-steps.ts';
import { receivedOf } from './unit-received.ts';
import { builtinPriceTable, createPriceTable, type PricedTable } from '../../../shared/engines/pricing/index.ts';

// The passes of building a unit, one module each: model calls and who made them (model-calls.ts),
// the dialog merged across them (merge-history.ts), tool calls joined with their results
// (tool-calls.ts), then usage, errors and attributes (unit-summary.ts), and the steps with their
// latency, tokens and cost (unit-steps.ts).

/** Prices when the caller gives none: the built-in table. */
const BUILTIN_PRICES = createPriceTable(builtinPriceTable());

export interface AssembleOptions {
  /** Prices model calls (`cost_usd`); the built-in table when unset. */
  prices?: PricedTable;
}

export interface TraceParts {
  traceId: string;
  /** Defaults to the trace id; set for a fragment of spans that came after the trace's unit was gone. */
  unitId?: string;
  /** `<trace id>@<project>` when another project used the trace id first (the unit id then). */
  projectUnitId?: string;
  spans: readonly SpanRecord[];
  logs: readonly LogRecordEnvelope[];
  /** Spans (and log records) of the trace left out for the per-trace cap: the unit is flagged truncated. */
  dropped?: { spans: number; logs: number; maxSpans: number };
}

/**
 * Builds the canonical unit of one trace: the dialog deduplicated across model calls, tool calls
 * joined with their results, and the run's agent, model, usage and errors. Pure.
 */
export function assembleTrace(parts: TraceParts, assembledAtMs: number, options: AssembleOptions = {}): Unit {
  const steps = assembleTraceInSteps(parts, assembledAtMs, options);
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
export function* assembleTraceInSteps(parts: TraceParts, assembledAtMs: number, options: AssembleOptions = {}): Generator<void, Unit> {
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
  // An MCP server's span of a request the client's span already shows is not a second call.
  const folded = mcpPairs(spans);
  const toolSpans = spans.filter((s) => s.genai.tool_execution && !folded.has(s));
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

  const errors = unitErrors(folded.size > 0 ? spans.filter((s) => !folded.has(s)) : spans, parts, root);

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
  const startTimeMs = spans.length ? startMs : assembledAtMs;
  const endTimeMs = spans.length ? endMs : assembledAtMs;
  yield;
  const figures = stepsOf({ spans, toolCalls, startMs: startTimeMs, endMs: endTimeMs, prices: options.prices ?? BUILTIN_PRICES });
  // The ingest key's project; a trace id is random, so spans of one trace come from one project.
  const project = firstDefined(ordered, (s) => s.project);
  const contentRefs = contentRefsOf(spans);

  return {
    schema_version: 1,
    unit_id: parts.unitId ?? parts.projectUnitId ?? parts.traceId,
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
    truncated: (parts.dropped !== undefined && parts.dropped.spans + parts.dropped.logs > 0) || spans.some((s) => s.genai.truncated === true || s.dropped_attributes_count > 0),
    span_count: spans.length,
    start_time_ms: startTimeMs,
    end_time_ms: endTimeMs,
    assembled_at_ms: assembledAtMs,
    attributes: unitAttributes(root ?? spans[0]),
    ...(spans.some((s) => s.genai.session_end === true) ? { session_end: true } : {}),
    ...(spans.some((s) => s.genai.simulation_record === true) ? { simulation_record: true } : {}),
    ...(project !== null ? { project } : {}),
    ...(root ? { root_span_id: root.span_id } : {}),
    ...(contentRefs.length > 0 ? { content_refs: contentRefs } : {}),
    received: receivedOf(spans, parts.logs, root),
    ...figures,
  };
}
