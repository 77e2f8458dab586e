export { compareTestRuns } from './compare.ts';
export type { CheckComparison } from './compare.ts';
export {
  CustomModelSchema,
  GenerationModelSchema,
  MAX_SCENARIO_ROWS,
  ModelDocSchema,
  ModelsSchema,
  ScenarioSetDocSchema,
  SeedRowSchema,
  TEST_RUN_DOC_KINDS,
  TEST_RUN_TYPES,
  TestRunDocSchema,
} from './docs.ts';
export type { CheckMetric, ModelDoc, ScenarioSetDoc, TestRunDoc, TestRunRow } from './docs.ts';
export { executeTestRun, renderModelTemplate, seedText } from './execute.ts';
export type { OutputSource } from './execute.ts';
export { testRunMetrics } from './summary.ts';
