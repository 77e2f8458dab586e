import { z } from 'zod';
import { ChatMessageSchema, ToolDefinitionSchema } from './message.ts';

/** A plain JS value decoded from an OTLP AnyValue (kvlist → object, array → array, int64 → number or decimal string). */
const AttributeValueSchema: z.ZodType<unknown> = z.unknown();

export const TokenUsageSchema = z.object({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

const ModalityTokensSchema = z.object({
  text: z.number().optional(),
  image: z.number().optional(),
  audio: z.number().optional(),
  video: z.number().optional(),
});
export type ModalityTokens = z.infer<typeof ModalityTokensSchema>;

export const McpSchema = z.object({
  /** `tools/call`, `resources/read`, `initialize`, … (`mcp.method.name`). */
  method: z.string(),
  /** `client` (span kind CLIENT) or `server` (SERVER). */
  side: z.enum(['client', 'server']),
  session_id: z.string().optional(),
  resource_uri: z.string().optional(),
  protocol_version: z.string().optional(),
  /** `jsonrpc.request.id`: the same on the client's and the server's span of one request. */
  request_id: z.string().optional(),
});
export type McpFields = z.infer<typeof McpSchema>;

export const ContentRefsSchema = z.object({
  input: z.string().optional(),
  output: z.string().optional(),
  system: z.string().optional(),
});
export type ContentRefs = z.infer<typeof ContentRefsSchema>;

/** Which convention family a span's content was read from. */
export const GenAiFamilySchema = z.enum([
  'otel_genai',
  'otel_genai_legacy',
  'openllmetry',
  'openinference',
  'vercel_ai',
  'langfuse',
  'tracecheck',
]);
export type GenAiFamily = z.infer<typeof GenAiFamilySchema>;

/**
 * What the collector read off one span, normalized to canonical names. Everything optional:
 * content capture is opt-in in every family, so spans without messages are normal.
 */
const SpanGenAiSchema = z.object({
  family: GenAiFamilySchema.optional(),
  /** `chat`, `execute_tool`, `invoke_agent`, … (gen_ai.operation.name or the family's equivalent). */
  operation: z.string().optional(),
  /** Messages sent to the model on this span (system instructions first). */
  input_messages: z.array(ChatMessageSchema).optional(),
  /** Messages the model answered on this span (one per choice). */
  output_messages: z.array(ChatMessageSchema).optional(),
  tool_definitions: z.array(ToolDefinitionSchema).optional(),
  /** Set on tool-execution spans. */
  tool_execution: z
    .object({
      name: z.string(),
      call_id: z.string().optional(),
      arguments: z.string().optional(),
      result: z.string().optional(),
      error: z.string().optional(),
    })
    .optional(),
  request_model: z.string().optional(),
  response_model: z.string().optional(),
  provider: z.string().optional(),
  usage: TokenUsageSchema.optional(),
  /** USD of a model call as the instrumentation reported it (Langfuse's cost details); wins over the price table. */
  cost_usd: z.number().nonnegative().optional(),
  agent_name: z.string().optional(),
  agent_version: z.string().optional(),
  /** An `invoke_workflow` span's workflow (pre-split `gen_ai.workflow.name`, v0.1.0 `gen_ai.agent.name`). */
  workflow_name: z.string().optional(),
  conversation_id: z.string().optional(),
  /** Tokens per modality (`gen_ai.usage.{text,image,audio,video}.input_tokens`, `{text,audio}.output_tokens`). */
  usage_by_modality: z.object({ input: ModalityTokensSchema.optional(), output: ModalityTokensSchema.optional() }).optional(),
  /** A memory operation (`search_memory`, `create_memory`, …, `create_memory_store`): its store and record count. */
  memory: z.object({ store_id: z.string().optional(), record_count: z.number().optional() }).optional(),
  /** An MCP client or server span (`{mcp.method.name} {target}`). */
  mcp: McpSchema.optional(),
  /** Content recorded by reference (`gen_ai.input.messages.ref`, …): URIs of where the messages were uploaded. */
  content_refs: ContentRefsSchema.optional(),
  scenario_input: z.string().optional(),
  scenario_result: z.string().optional(),
  simulation_id: z.string().optional(),
  /** `tracecheck.session.end = true`: the conversation is over, its session unit closes now. */
  session_end: z.boolean().optional(),
  /** `tracecheck.simulation.record = true`: this trace is a simulation's own record of its dialog, not an agent run. */
  simulation_record: z.boolean().optional(),
  /** True when the span dropped attributes, so a flattened history may be cut short. */
  truncated: z.boolean().optional(),
});
export type SpanGenAi = z.infer<typeof SpanGenAiSchema>;

/** Nanoseconds since the epoch as a decimal string (they do not fit a JS number exactly). */
const UnixNanoSchema = z.string().regex(/^\d{1,20}$/, 'must be decimal nanoseconds');

const SpanEventSchema = z.object({
  name: z.string(),
  time_unix_nano: UnixNanoSchema,
  attributes: z.record(z.string(), AttributeValueSchema),
});

/**
 * The OpenTelemetry GenAI evaluation event (`gen_ai.evaluation.result`), as a log record or a span
 * event: another tool's verdict on a run, scored by the scorer's evaluation intake and never held
 * by the assembler as part of the run.
 */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';

/**
 * Record on `tracecheck.spans` (key: trace id). `kind: "span"` is one OTLP span;
 * `kind: "log"` is one OTLP log record that belongs to a span (legacy GenAI message events).
 */
export const SpanEnvelopeSchema = z.discriminatedUnion('kind', [
  z.object({
    schema_version: z.literal(1),
    kind: z.literal('span'),
    trace_id: z.string().regex(/^[0-9a-f]{32}$/),
    span_id: z.string().regex(/^[0-9a-f]{16}$/),
    parent_span_id: z.string().regex(/^[0-9a-f]{16}$/).optional(),
    name: z.string(),
    span_kind: z.number().int(),
    /** Decimal strings: nanoseconds do not fit a JS number exactly. */
    start_time_unix_nano: UnixNanoSchema,
    end_time_unix_nano: UnixNanoSchema,
    status: z.object({ code: z.number().int(), message: z.string().optional() }),
    service_name: z.string().optional(),
    service_version: z.string().optional(),
    environment: z.string().optional(),
    scope: z.object({ name: z.string(), version: z.string().optional() }),
    /** Attributes not consumed into `genai` (content attributes are dropped to keep records small). */
    attributes: z.record(z.string(), AttributeValueSchema),
    resource_attributes: z.record(z.string(), AttributeValueSchema),
    events: z.array(SpanEventSchema),
    dropped_attributes_count: z.number().int().nonnegative(),
    genai: SpanGenAiSchema,
    received_at_ms: z.number(),
    /** The project of the ingest key that sent it (absent: `default`). */
    project: z.string().min(1).max(200).optional(),
  }),
  z.object({
    schema_version: z.literal(1),
    kind: z.literal('log'),
    trace_id: z.string().regex(/^[0-9a-f]{32}$/),
    span_id: z.string().regex(/^[0-9a-f]{16}$/).optional(),
    event_name: z.string(),
    time_unix_nano: UnixNanoSchema,
    /** Position of the record within its export, to keep order among equal timestamps. */
    sequence: z.number().int().nonnegative(),
    /** The message this event carries, normalized; `is_output` for `gen_ai.choice`. */
    message: ChatMessageSchema.optional(),
    /**
     * A whole model call's content, from a `gen_ai.client.inference.operation.details` event
     * (current semconv, content captured as events): input/output messages, tool definitions,
     * model and usage, for the span the record belongs to.
     */
    genai: SpanGenAiSchema.optional(),
    is_output: z.boolean(),
    service_name: z.string().optional(),
    /** The instrumentation scope's name, on evaluation events only (their source). */
    scope_name: z.string().optional(),
    attributes: z.record(z.string(), AttributeValueSchema),
    received_at_ms: z.number(),
    /** The project of the ingest key that sent it (absent: `default`). */
    project: z.string().min(1).max(200).optional(),
  }),
]);
export type SpanEnvelope = z.infer<typeof SpanEnvelopeSchema>;
export type SpanRecord = Extract<SpanEnvelope, { kind: 'span' }>;
export type LogRecordEnvelope = Extract<SpanEnvelope, { kind: 'log' }>;
