import { z } from 'zod';
import { McpSchema, TokenUsageSchema } from './span-envelope.v1.ts';

// What a unit keeps of each step of its run: model calls, tool executions and hand-offs
// between agents, in start order. Times are ms since the unit's start; every string was cut to a
// bound by the assembler (the values come from hostile traces).

const StepBase = {
  /** The span the step was read from (absent for a hand-off, which is between spans). */
  span_id: z.string().optional(),
  /** The agent the step belongs to (the nearest agent invocation around it), null when none is named. */
  agent: z.string().nullable(),
  /** Start in ms after the unit's start. */
  start_ms: z.number(),
};

const ModelStepSchema = z.object({
  type: z.literal('llm'),
  ...StepBase,
  model: z.string().nullable(),
  provider: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
  /** Tokens per modality where the instrumentation reports them (`gen_ai.usage.{text,image,audio,video}.input_tokens`, …). */
  usage_by_modality: z
    .object({ input: z.record(z.string(), z.number()).optional(), output: z.record(z.string(), z.number()).optional() })
    .optional(),
  latency_ms: z.number(),
  /** Time to the first token (or chunk) of a streamed answer, where the instrumentation records it. */
  ttft_ms: z.number().optional(),
  status: z.enum(['ok', 'error']),
  error: z.string().optional(),
  /** Priced by the unit's `price_table`; null when the table has no price for the model. */
  cost_usd: z.number().nullable(),
});

const ToolStepSchema = z.object({
  type: z.literal('tool'),
  ...StepBase,
  name: z.string(),
  /** Links the execution to the call in the dialog (`tool_calls[].id`). */
  call_id: z.string().nullable(),
  latency_ms: z.number(),
  status: z.enum(['ok', 'error']),
  error: z.string().optional(),
  /** Set when the step is an MCP request (the client's span; the server's span of the same request is folded into it). */
  mcp: McpSchema.optional(),
});

/** An agent's planning or task decomposition (`gen_ai.operation.name = plan`). */
const PlanStepSchema = z.object({
  type: z.literal('plan'),
  ...StepBase,
  name: z.string(),
  latency_ms: z.number(),
  status: z.enum(['ok', 'error']),
  error: z.string().optional(),
});

/** A memory operation: `search_memory`, `create_memory`, `update_memory`, `upsert_memory`, `delete_memory`, `create_memory_store`, `delete_memory_store`. */
const MemoryStepSchema = z.object({
  type: z.literal('memory'),
  ...StepBase,
  operation: z.string(),
  store_id: z.string().nullable(),
  /** Records returned (search) or written, updated or deleted, as the span reports them. */
  record_count: z.number().nullable(),
  latency_ms: z.number(),
  status: z.enum(['ok', 'error']),
  error: z.string().optional(),
});

const HandoffStepSchema = z.object({
  type: z.literal('handoff'),
  ...StepBase,
  /** The agent that had control before (the step's `agent` is the one that takes it). */
  from: z.string(),
});

const UnitStepSchema = z.discriminatedUnion('type', [ModelStepSchema, ToolStepSchema, HandoffStepSchema, PlanStepSchema, MemoryStepSchema]);
export type UnitStep = z.infer<typeof UnitStepSchema>;
export type ModelStep = z.infer<typeof ModelStepSchema>;
export type ToolStep = z.infer<typeof ToolStepSchema>;
export type MemoryStep = z.infer<typeof MemoryStepSchema>;

/** Tokens, calls and cost of one model within a unit. */
const ModelTotalsSchema = TokenUsageSchema.extend({
  calls: z.number().int().nonnegative(),
  cost_usd: z.number().nullable(),
});
export type ModelTotals = z.infer<typeof ModelTotalsSchema>;

/** The unit's step-derived figures; optional on the unit (units stored before step figures existed have none). */
export const UnitStepFields = {
  steps: z.array(UnitStepSchema).optional(),
  /** Steps left out past the per-unit cap (the counts below still include them). */
  steps_dropped: z.number().int().nonnegative().optional(),
  /** end - start of the run, ms. */
  duration_ms: z.number().nonnegative().optional(),
  llm_calls: z.number().int().nonnegative().optional(),
  /** How many tool calls the run made (its `tool_calls` list joined with tool spans); `tool_errors` of them failed. */
  tool_call_count: z.number().int().nonnegative().optional(),
  tool_errors: z.number().int().nonnegative().optional(),
  /** By model name (at most a bounded number; the rest under `other`). */
  tokens_by_model: z.record(z.string(), ModelTotalsSchema).optional(),
  /** USD of the model calls the price table knows; `unpriced_llm_calls` says how many it did not. */
  cost_usd: z.number().nonnegative().optional(),
  unpriced_llm_calls: z.number().int().nonnegative().optional(),
  /** The version of the price table that priced the unit. */
  price_table: z.string().optional(),
};
