import { z } from 'zod';
import { GenAiFamilySchema } from './span-envelope.v1.ts';

// What a unit was built from, per instrumentation scope: enough to say, when the dialog
// is empty or a part is missing, which library sent the spans and which of its settings fixes it.
// Written by the assembler; optional on the unit (units stored before it have none). Every string
// was cut to a bound by the assembler (the values come from hostile traces).

const ReceivedScopeSchema = z.object({
  /** The instrumentation scope's name, as the library sets it (`@opentelemetry/instrumentation-openai`, `ai`, …). */
  name: z.string(),
  version: z.string().nullable(),
  /** The convention family most of its spans were read with; null when none carried GenAI attributes. */
  family: GenAiFamilySchema.nullable(),
  spans: z.number().int().nonnegative(),
  /** A few distinct span names, first seen first. */
  span_names: z.array(z.string()),
  /** Log records that belong to its spans (GenAI message events). */
  logs: z.number().int().nonnegative(),
  /** Its model calls (as the unit's steps count them) and how many carried message text, on the span or in its log records. */
  model_calls: z.number().int().nonnegative(),
  model_calls_with_content: z.number().int().nonnegative(),
  /** Its tool executions and how many carried the tool's result. */
  tool_executions: z.number().int().nonnegative(),
  tool_executions_with_result: z.number().int().nonnegative(),
});
export type ReceivedScope = z.infer<typeof ReceivedScopeSchema>;

export const UnitReceivedSchema = z.object({
  /** `span`: the trace's root span arrived; `entry`: an entry span whose caller exports elsewhere stands in; `none`: neither. */
  root: z.enum(['span', 'entry', 'none']),
  /** The root's (or, without one, the first span's) name. */
  root_name: z.string().nullable(),
  /** Log records of the trace, whichever span they belong to. */
  logs: z.number().int().nonnegative(),
  /** By span count, most first (at most a bounded number). */
  scopes: z.array(ReceivedScopeSchema),
});
export type UnitReceived = z.infer<typeof UnitReceivedSchema>;
