export { compareTestRuns } from './compare.ts';
;
export {
  
  
  MAX_SCENARIO_ROWS,
  ModelDocSchema,
  ModelsSchema,
  ScenarioSetDocSchema,
  SeedRowSchema,
  TEST_RUN_DOC_KINDS,
  TEST_RUN_TYPES,
  TestRunDocSchema,
} from './docs.ts';
export type {  ModelDoc, ScenarioSetDoc, TestRunDoc,  } from './docs.ts';
export { executeTestRun,  seedText } from './execute.ts';
export type { OutputSource } from './execute.ts';
export { testRunMetrics } from './summary.ts';
