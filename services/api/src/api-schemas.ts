import { z } from 'zod';
import { ChatMessageSchema, ScoreSchema, UnitSchema } from '../../../shared/contracts/schemas/index.ts';
import { DiagnosticSchema } from './receive-schemas.ts';

// Answer shapes of the API, as zod schemas: the OpenAPI document is generated from them and the
// tests check real answers against them.

const ScoreOutSchema = ScoreSchema.extend({ project: z.string(), unit_revision: z.number().int(), created_at: z.string(), unit_end_time: z.string() });
const UnitOutSchema = UnitSchema.extend({
  messages: z.array(ChatMessageSchema),
  diagnostics: z.array(DiagnosticSchema).describe('what the unit is missing (no message content, tool results, its root span) and the setting that fixes each; computed when read'),
});

export const ScoresPageSchema = z.object({ scores: z.array(ScoreOutSchema), count: z.number().int(), next_cursor: z.string().nullable() });
export const UnitWithScoresSchema = z.object({
  unit: UnitOutSchema,
  scores: z.array(ScoreOutSchema).describe('the scores of this revision of the unit'),
  revision: z.number().int().describe('which revision of the unit this is (1, 2, …; a unit changed by late spans is a new revision)'),
  latest_revision: z.number().int(),
});

const UnitRevisionOutSchema = z.object({
  revision: z.number().int(),
  latest: z.boolean(),
  assembled_at_ms: z.number().describe('when the assembler built it'),
  assembled_at: z.string(),
  stored_at_ms: z.number().describe('when the store first received it'),
  stored_at: z.string(),
  span_count: z.number().int(),
  content_hash: z.string().describe('SHA-256 of the whole unit but its assembly time'),
  model_output_hash: z.string().describe('SHA-256 of model_output as JSON'),
  messages_hash: z.string().describe('SHA-256 of the dialog (message_history)'),
  changed: z
    .array(z.enum(['model_output', 'messages', 'span_count', 'other']))
    .nullable()
    .describe('what differs from the revision before (null for revision 1); `other`: the content changed elsewhere (usage, errors, tool calls, agent fields)'),
  scores: z.array(ScoreOutSchema),
});
export const UnitRevisionsSchema = z.object({ unit_id: z.string(), revisions: z.array(UnitRevisionOutSchema) });

export const UnitSummaryOutSchema = z.object({
  unit_id: z.string(),
  project: z.string(),
  kind: z.string(),
  agent_name: z.string().nullable(),
  agent_version: z.string().nullable(),
  environment: z.string().nullable(),
  service: z.string().nullable(),
  conversation_id: z.string().nullable(),
  model: z.string().nullable(),
  start_time_ms: z.number(),
  end_time_ms: z.number(),
  span_count: z.number().int(),
  truncated: z.boolean(),
  start_time: z.string(),
  end_time: z.string(),
});

const Interval = z.tuple([z.number().nullable(), z.number().nullable()]);

const SeriesPointSchema = z.object({
  t: z.number().describe('bucket start, epoch ms'),
  n: z.number().int().describe('ok scores'),
  passed: z.number().int(),
  pass_rate: z.number().nullable(),
  wilson_low: z.number().nullable(),
  wilson_high: z.number().nullable(),
  mean: z.number().nullable(),
  error_count: z.number().int(),
  not_run_count: z.number().int(),
});
export const SeriesSchema = z.object({
  check: z.string(),
  bucket: z.enum(['1m', '5m', '1h', '1d']),
  from: z.number(),
  to: z.number(),
  points: z.array(SeriesPointSchema),
});

const RateStatsSchema = z.object({
  n: z.number().int(),
  passed: z.number().int(),
  pass_rate: z.number().nullable(),
  ci: Interval.nullable().describe('95% Wilson interval of the pass rate'),
  mean: z.number().nullable(),
  mean_ci: Interval.nullable(),
  total: z.number().int(),
  error_count: z.number().int(),
  not_run_count: z.number().int(),
});
export const SummarySchema = z.object({
  from: z.number(),
  to: z.number(),
  previous: z.object({ from: z.number(), to: z.number() }),
  checks: z.array(RateStatsSchema.extend({ check: z.string(), previous: RateStatsSchema })),
});

const ArmSchema = z.object({ n: z.number().int(), passed: z.number().int().nullable(), rate: z.number().nullable(), mean: z.number().nullable(), ci: Interval.nullable() });
const ComparisonSchema = z.object({
  check: z.string(),
  type: z.enum(['pass_fail', 'score']),
  a: ArmSchema,
  b: ArmSchema,
  test: z.enum(['two-proportion z', 'fisher exact', 'mann-whitney u', 'none']),
  p_value: z.number(),
  difference: z.object({ value: z.number().nullable(), ci: Interval.nullable() }).describe('B − A, with its 95% interval'),
  verdict: z.enum(['worse', 'better', 'no significant difference']),
  failing_units: z.array(z.object({ unit_id: z.string(), href: z.string() })).describe("B's failing units (at most 20), newest first"),
});
export const CompareSchema = z.object({
  alpha: z.number(),
  a: z.record(z.string(), z.string()),
  b: z.record(z.string(), z.string()),
  from: z.number().nullable(),
  to: z.number().nullable(),
  comparisons: z.array(ComparisonSchema),
  metrics: z.array(
    z.object({
      metric: z.enum(['duration_ms', 'cost_usd', 'tokens']),
      a: z.object({ n: z.number(), median: z.number().nullable() }),
      b: z.object({ n: z.number(), median: z.number().nullable() }),
      test: z.literal('mann_whitney_u'),
      method: z.enum(['exact', 'normal']).nullable(),
      u: z.number().nullable(),
      p_value: z.number().nullable(),
      shift: z.object({ estimate: z.number().nullable(), ci: z.tuple([z.number().nullable(), z.number().nullable()]), confidence: z.number().nullable() }),
      verdict: z.enum(['higher', 'lower', 'no significant difference', 'insufficient data', 'too many values']),
    }),
  ),
});
