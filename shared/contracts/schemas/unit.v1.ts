import { z } from 'zod';
import { ChatMessageSchema, ToolDefinitionSchema } from './message.ts';
import { parseRecord } from './parse-record.ts';
import { ContentRefsSchema, TokenUsageSchema } from './span-envelope.v1.ts';
import { UnitReceivedSchema } from './unit-received.ts';
import { UnitStepFields } from './unit-steps.ts';

/** A tool call joined with its result (by call id). */
const UnitToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** JSON string as the model produced it. */
  arguments: z.string(),
  /** The tool's result as text; null when no result was seen. */
  result: z.string().nullable(),
  /** Set when the tool failed (error status on its span, or an error-shaped result). */
  error: z.string().nullable(),
});
export type UnitToolCall = z.infer<typeof UnitToolCallSchema>;

const UnitErrorSchema = z.object({
  span_id: z.string().optional(),
  type: z.string().optional(),
  message: z.string(),
});

/**
 * What a check scores: one agent run (a trace) or one conversation (a session).
 * Field names are the template variables users know (`model_output`, `message_history`, …).
 * Record on `tracecheck.units` (key: unit id).
 */
export const UnitSchema = z.object({
  schema_version: z.literal(1),
  /** For a trace unit the trace id in hex; for a session unit `session:<conversation id>`. */
  unit_id: z.string().min(1),
  kind: z.enum(['trace', 'session']),
  trace_ids: z.array(z.string()),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  service: z.string().nullable(),
  environment: z.string().nullable(),
  conversation_id: z.string().nullable(),
  model: z.string().nullable(),
  /** The messages sent to the model on the last model call. */
  model_input: z.array(ChatMessageSchema),
  /** The final assistant text. */
  model_output: z.string().nullable(),
  /** The whole ordered dialog with tool calls and tool results, deduplicated across spans. */
  message_history: z.array(ChatMessageSchema),
  tool_calls: z.array(UnitToolCallSchema),
  tools: z.array(ToolDefinitionSchema),
  scenario_input: z.string().nullable(),
  scenario_result: z.string().nullable(),
  simulation_id: z.string().nullable(),
  simulation_message_history: z.array(ChatMessageSchema).nullable(),
  usage: TokenUsageSchema,
  errors: z.array(UnitErrorSchema),
  /** True when some span dropped attributes, or spans past the per-trace cap were left out: the history may be incomplete. */
  truncated: z.boolean(),
  /**
   * Model calls whose messages were recorded by reference (`gen_ai.input.messages.ref`, …): the
   * span and the URIs (at most a bounded number). Absent when every call's content came inline.
   */
  content_refs: z.array(ContentRefsSchema.extend({ span_id: z.string() })).optional(),
  /** The trace's root span (else its entry span): what evaluation events we send are parented to. Absent: no root arrived. */
  root_span_id: z.string().optional(),
  span_count: z.number().int().nonnegative(),
  start_time_ms: z.number(),
  end_time_ms: z.number(),
  assembled_at_ms: z.number(),
  /** Short string attributes of the root span and the resource (root span wins), for monitor filters. */
  attributes: z.record(z.string(), z.string()).optional(),
  /** The trace carried `tracecheck.session.end = true`: its conversation's session closes now. */
  session_end: z.boolean().optional(),
  /** The trace is a simulation's own record of its dialog (`tracecheck.simulation.record = true`). */
  simulation_record: z.boolean().optional(),
  /** The project (API key scope) whose ingest key sent the spans; absent means `default`. */
  project: z.string().min(1).max(200).optional(),
  /** What the unit was built from, per instrumentation scope; absent on units stored before it. */
  received: UnitReceivedSchema.optional(),
  // Steps, duration, calls, tokens per model and cost, all optional.
  ...UnitStepFields,
});
export type Unit = z.infer<typeof UnitSchema>;

/** Units parseUnit gave: checked against UnitSchema already (a store writing one need not check it again). */
const checkedUnits = new WeakSet<Unit>();

/**
 * A units-topic record's value as a unit; anything else is a PermanentError (see parseRecord, and
 * its `object`: the producer's unit, on the in-process bus).
 */
export function parseUnit(value: string, object?: unknown): Unit {
  const unit = parseRecord(UnitSchema, value, 'a unit v1', object);
  checkedUnits.add(unit);
  return unit;
}

/** Whether `unit` is parseUnit's output (UnitSchema's own copy, which no stage changes after). */
export function isCheckedUnit(unit: Unit): boolean {
  return checkedUnits.has(unit);
}
