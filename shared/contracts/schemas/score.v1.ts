import { z } from 'zod';

/** How a score was decided; `external`: by another tool, read from its `gen_ai.evaluation.result` event. */
const ScoreMethodSchema = z.enum(['deterministic', 'model', 'hybrid', 'code', 'external']);
export type ScoreMethod = z.infer<typeof ScoreMethodSchema>;

/**
 * `ok`: the check decided; `error`: it tried and failed (reason in `error`);
 * `not_run`: it could not run here (e.g. no judge configured; reason in `error`).
 */
const ScoreStatusSchema = z.enum(['ok', 'error', 'not_run']);

/**
 * One check's verdict on one unit. Record on `tracecheck.scores` (key: unit id) and a row of the
 * `scores` table. Idempotent per (unit_id, check, check_version). Carries the unit's agent,
 * version and environment so that queries need no join.
 */
export const ScoreSchema = z.object({
  schema_version: z.literal(1),
  unit_id: z.string(),
  /** `eval`: a result of `tracecheck eval --store`; its unit id is `eval:<run id>:<prompt>:<reference>:<variant>:<try>`. */
  unit_kind: z.enum(['trace', 'session', 'eval']),
  check: z.string(),
  check_version: z.string(),
  status: ScoreStatusSchema,
  value: z.number().nullable(),
  passed: z.boolean().nullable(),
  explanation: z.string(),
  method: ScoreMethodSchema,
  error: z.string().nullable(),
  judge_model: z.string().nullable(),
  latency_ms: z.number().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  environment: z.string().nullable(),
  service: z.string().nullable(),
  unit_end_time_ms: z.number(),
  created_at_ms: z.number(),
  /** The project (API key scope) the unit was ingested under; absent means `default`. */
  project: z.string().min(1).max(200).optional(),
  /** The revision of the unit this score is of (a unit changed by late spans is re-scored as revision 2, …); absent: the unit's latest. */
  unit_revision: z.number().int().positive().optional(),
});
export type Score = z.infer<typeof ScoreSchema>;
