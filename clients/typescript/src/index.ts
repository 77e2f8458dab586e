/**
 * tracecheck's TypeScript client: the Okareo SDK's calls (checks, scenario sets, register_model,
 * run_test) and score reading, over Node 20's fetch. `new Okareo({api_key})` becomes
 * `new Tracecheck({api_key, base_url})`; the calls and the type names are the same.
 */
export { Tracecheck } from './client.js';
export type { TracecheckOptions } from './client.js';
export { ModelUnderTest } from './model-under-test.js';
export { TracecheckError } from './request.js';
export { CheckOutputType, TestRunType } from './types.js';
export type {
  BaseModel,
  CheckCreateUpdateProps,
  CheckInfo,
  CheckMetric,
  CodeBasedCheck,
  CreateScenarioProps,
  CustomModel,
  EvaluatorSpecRequest,
  GeneratedCheck,
  GenerationModel,
  ModelBasedCheck,
  ModelInvocation,
  ModelUnderTestResponse,
  OpenAIModel,
  OutputDataType,
  RegisterModelProps,
  CheckMode,
  RowResult,
  RunTestProps,
  SavedCheck,
  ScenarioSetResponse,
  Score,
  ScoreRow,
  TestRunItem,
  UploadEvaluatorProps,
} from './types.js';
import type { CreateScenarioProps, SeedData as SeedDataShape } from './types.js';

export type SeedData = SeedDataShape;

/** The SDK's SeedData({input, result}): the row as given. */
export function SeedData(props: SeedDataShape): SeedDataShape {
  return props;
}

/** The SDK's ScenarioSetCreate({name, seed_data}): the request as given. */
export function ScenarioSetCreate(props: CreateScenarioProps): CreateScenarioProps {
  return props;
}
