import { z } from 'zod';

/** Store doc kinds of evaluation runs: a scenario set, a registered model under test, a test run. */
export const TEST_RUN_DOC_KINDS = { scenarioSet: 'scenario_set', model: 'model_under_test', testRun: 'test_run' } as const;

/** Rows of one scenario set, and of one test run: a run is one stored document (the store keeps at most 1 MB). */
export const MAX_SCENARIO_ROWS = 200;

/** The SDK's `TestRunType`; checks run on NL_GENERATION runs. */
export const TEST_RUN_TYPES = ['NL_GENERATION', 'MULTI_CLASS_CLASSIFICATION', 'INFORMATION_RETRIEVAL', 'MULTI_TURN', 'AGENT_EVAL', 'invariant'] as const;

/** A seed row as the SDK sends it: input and result, each text or JSON. */
export const SeedRowSchema = z.object({ input: z.unknown(), result: z.unknown() });

export const ScenarioSetDocSchema = z.object({
  scenario_id: z.string(),
  name: z.string(),
  created_at_ms: z.number(),
  rows: z.array(z.object({ id: z.string(), input: z.unknown(), result: z.unknown() })),
});
export type ScenarioSetDoc = z.infer<typeof ScenarioSetDocSchema>;

/** A chat model the server calls (Okareo's GenerationModel / OpenAIModel), its prompts templated on the scenario row. */
const GenerationModelSchema = z
  .object({
    model_id: z.string().max(200).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    system_prompt_template: z.string().max(100_000).nullish(),
    user_prompt_template: z.string().max(100_000).nullish(),
    dialog_template: z.string().max(100_000).nullish(),
    tools: z.array(z.unknown()).nullish(),
  })
  .loose();
export type GenerationModel = z.infer<typeof GenerationModelSchema>;

/** A model the client invokes itself (Okareo's CustomModel): the server receives its outputs with the run. */
const CustomModelSchema = z.object({ name: z.string().max(200).nullish() }).loose();

export const ModelsSchema = z
  .object({ generation: GenerationModelSchema.optional(), openai: GenerationModelSchema.optional(), custom: CustomModelSchema.optional() })
  .strict()
  .refine((m) => Object.keys(m).length === 1, { message: 'register exactly one model: generation, openai (a chat model with prompt templates) or custom (a callable in the client)' });

export const ModelDocSchema = z.object({ id: z.string(), name: z.string(), tags: z.array(z.string()), models: ModelsSchema, created_at_ms: z.number() });
export type ModelDoc = z.infer<typeof ModelDocSchema>;

const RowScoreSchema = z.object({
  status: z.enum(['ok', 'error', 'not_run']),
  value: z.number().nullable(),
  passed: z.boolean().nullable(),
  explanation: z.string(),
  error: z.string().nullable(),
});
export type RowScore = z.infer<typeof RowScoreSchema>;

const TestRunRowSchema = z.object({
  id: z.string(),
  scenario_input: z.string().nullable(),
  scenario_result: z.string().nullable(),
  model_output: z.string().nullable(),
  error: z.string().nullable(),
  scores: z.record(z.string(), RowScoreSchema),
});
export type TestRunRow = z.infer<typeof TestRunRowSchema>;

const CheckMetricSchema = z.object({
  check: z.string(),
  version: z.string(),
  output_type: z.enum(['pass_fail', 'score']),
  scored: z.number().int(),
  errors: z.number().int(),
  not_run: z.number().int(),
  mean: z.number().nullable(),
  /** Pass/fail checks: passed / scored; score checks with a threshold: rows at or above it. */
  pass_rate: z.number().nullable(),
});
export type CheckMetric = z.infer<typeof CheckMetricSchema>;

export const TestRunDocSchema = z.object({
  id: z.string(),
  name: z.string(),
  tags: z.array(z.string()),
  type: z.enum(TEST_RUN_TYPES),
  mut_id: z.string(),
  model_name: z.string(),
  scenario_set_id: z.string(),
  scenario_name: z.string(),
  start_time_ms: z.number(),
  end_time_ms: z.number(),
  status: z.literal('FINISHED'),
  metrics: z.array(CheckMetricSchema),
  rows: z.array(TestRunRowSchema),
});
export type TestRunDoc = z.infer<typeof TestRunDocSchema>;
