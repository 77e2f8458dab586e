/** The request and response shapes, named as the Okareo SDK names them where it has a name. */

export const CheckOutputType = { SCORE: 'SCORE', PASS_FAIL: 'PASS_FAIL' } as const;
export type CheckOutputType = (typeof CheckOutputType)[keyof typeof CheckOutputType];
export type OutputDataType = 'bool' | 'int' | 'float';

/** The SDK's TestRunType; checks run on NL_GENERATION runs. */
export enum TestRunType {
  INFORMATION_RETRIEVAL = 'INFORMATION_RETRIEVAL',
  INVARIANT = 'invariant',
  MULTI_CLASS_CLASSIFICATION = 'MULTI_CLASS_CLASSIFICATION',
  NL_GENERATION = 'NL_GENERATION',
  MULTI_TURN = 'MULTI_TURN',
}

export interface ModelBasedCheck {
  prompt_template: string;
  check_type: CheckOutputType | 'score' | 'pass_fail';
}

/** A code check: the source of a Python file (class Check(CodeBasedCheck)) or of a TypeScript module exporting evaluate(args). */
export interface CodeBasedCheck {
  code: string;
  output_data_type: OutputDataType;
  language?: 'python' | 'typescript' | 'javascript';
  requires_scenario_input?: boolean;
  requires_scenario_result?: boolean;
}

/** create_or_update_check: `check` as this client spells it, or the SDK's `check_config` ({prompt_template | code_contents, type}). */
export interface CheckCreateUpdateProps {
  project_id?: string;
  name: string;
  description: string;
  check?: ModelBasedCheck | CodeBasedCheck;
  check_config?: { prompt_template?: string; code_contents?: string; type?: string; [field: string]: unknown };
}

export interface EvaluatorSpecRequest {
  project_id?: string;
  name?: string;
  description: string;
  requires_scenario_input?: boolean;
  requires_scenario_result?: boolean;
  output_data_type: string;
  language?: 'python' | 'typescript';
}

/** upload_check: the code from file_path, or generate_check's generated_code spread into the call. */
export interface UploadEvaluatorProps {
  project_id?: string;
  name: string;
  description?: string;
  file_path?: string;
  generated_code?: string;
  requires_scenario_input?: boolean;
  requires_scenario_result?: boolean;
  output_data_type?: string;
  language?: 'python' | 'typescript' | 'javascript';
  update?: boolean;
}

export interface SavedCheck {
  /** The name the check is stored and scored under (a display name's slug): `checks: [check.id]` names it. */
  id: string;
  name: string;
  /** The name as written, when it was not already a slug ("Example Uploaded Check"). */
  display_name?: string;
  version: string;
  changed: boolean;
  versions: { version: string; created_at_ms: number }[];
}

export interface CheckInfo {
  id: string;
  name: string;
  display_name?: string;
  source: 'catalog' | 'user';
  kind: 'model' | 'code' | 'builtin';
  output_type: 'pass_fail' | 'score';
  description: string;
  version: string;
  versions: { version: string; created_at_ms: number }[];
}

export interface GeneratedCheck {
  name?: string;
  description: string;
  requires_scenario_input: boolean;
  requires_scenario_result: boolean;
  output_data_type: string;
  language: 'python' | 'typescript';
  generated_code: string;
}

export interface Score {
  check: string;
  unit_id: string;
  status: string;
  value: number | null;
  passed: boolean | null;
  explanation?: string | null;
  [field: string]: unknown;
}

/** A row to score: the output and, where the checks need them, the scenario's input and result, or the dialog. */
export interface ScoreRow {
  id?: string | number;
  model_output?: string | null;
  scenario_input?: string | null;
  scenario_result?: string | null;
  messages?: Array<{ role: 'system' | 'user' | 'assistant' | 'tool'; content: string | null; [field: string]: unknown }>;
  tools?: unknown[];
}

/** One check's result on one row (not stored). */
export interface RowResult {
  id: string;
  check: string;
  check_version: string;
  status: 'ok' | 'error' | 'not_run';
  value: number | null;
  passed: boolean | null;
  method: string;
  /** Who decided: `code` or `judge`. */
  decided_by: 'code' | 'judge';
  explanation: string;
  error: string | null;
}

/** How a judge-described check decides (model_refusal, loop_guard, …): `hybrid` unless set. */
export type CheckMode = 'judge' | 'hybrid' | 'deterministic';

type SeedValue = Record<string, unknown> | unknown[] | string;

export interface SeedData {
  input: SeedValue;
  result: SeedValue;
}

export interface CreateScenarioProps {
  name: string;
  project_id?: string;
  seed_data: SeedData[];
}

export interface ScenarioSetResponse {
  scenario_id: string;
  project_id: string;
  name: string;
  type: 'SEED';
  time_created: string;
  rows: number;
}

export interface BaseModel {
  type: string;
}

/** A chat model the server calls through its OpenAI-compatible endpoint; `{scenario_input}` in a template is the row's input. */
export interface OpenAIModel extends BaseModel {
  type: 'openai';
  model_id?: string;
  temperature?: number;
  system_prompt_template?: string;
  user_prompt_template?: string;
  dialog_template?: string;
  tools?: unknown[];
}

export interface GenerationModel extends Omit<OpenAIModel, 'type'> {
  type: 'generation';
}

/** What a custom model's invoke answers for one input. */
export interface ModelInvocation {
  model_prediction?: SeedValue;
  model_input?: SeedValue;
  model_output_metadata?: SeedValue;
  tool_calls?: unknown[];
}

/** A model the client invokes itself: run_test calls invoke on each row's input. */
export interface CustomModel extends BaseModel {
  type: 'custom';
  name?: string;
  invoke: (input: SeedValue) => ModelInvocation | Promise<ModelInvocation>;
}

export interface RegisterModelProps {
  name: string;
  tags?: string[];
  project_id?: string;
  models: OpenAIModel | GenerationModel | CustomModel | Array<OpenAIModel | GenerationModel | CustomModel>;
  update?: boolean;
}

export interface ModelUnderTestResponse {
  id: string;
  project_id: string;
  name: string;
  tags: string[];
  models: Record<string, unknown>;
  time_created: string;
  warning?: string;
}

export interface RunTestProps {
  /** Accepted for the SDK's sake: the server calls the model with its own configured key. */
  model_api_key?: string | Record<string, string>;
  project_id?: string;
  scenario_id?: string;
  scenario?: { scenario_id: string };
  name: string;
  type: TestRunType | string;
  calculate_metrics?: boolean;
  tags?: string[];
  /** Check names (the catalog's or the project's, display names too) or ids. */
  checks?: string[];
}

export interface CheckMetric {
  check: string;
  version: string;
  output_type: 'pass_fail' | 'score';
  scored: number;
  errors: number;
  not_run: number;
  mean: number | null;
  pass_rate: number | null;
}

export interface TestRunItem {
  id: string;
  name: string;
  tags: string[];
  type: string;
  mut_id: string;
  scenario_set_id: string;
  start_time: string;
  end_time: string;
  status: string;
  test_data_point_count: number;
  app_link: string;
  model_metrics: { mean_scores: Record<string, number | null>; pass_rates: Record<string, number>; checks: CheckMetric[] };
  rows?: Array<{ id: string; scenario_input: string | null; scenario_result: string | null; model_output: string | null; error: string | null; scores: Record<string, { status: string; value: number | null; passed: boolean | null; explanation: string; error: string | null }> }>;
}
