import { readFile } from 'node:fs/promises';
import { ModelUnderTest } from './model-under-test.js';
import { createRequester, type Requester } from './request.js';
import type {
  CheckCreateUpdateProps,
  CheckInfo,
  CreateScenarioProps,
  CustomModel,
  EvaluatorSpecRequest,
  GeneratedCheck,
  ModelUnderTestResponse,
  RegisterModelProps,
  CheckMode,
  RowResult,
  SavedCheck,
  ScenarioSetResponse,
  Score,
  ScoreRow,
  TestRunItem,
  UploadEvaluatorProps,
} from './types.js';

export interface TracecheckOptions {
  api_key?: string;
  base_url?: string;
}

/** `check_config.type` as the SDK sends it (score, pass_fail, any case) → the output_data_type of its code. */
function dataTypeOfCheckType(type: string | undefined): 'bool' | 'float' {
  return (type ?? '').toLowerCase().includes('score') ? 'float' : 'bool';
}

export class Tracecheck {
  private readonly request: Requester;

  constructor(options: TracecheckOptions = {}) {
    this.request = createRequester((options.base_url ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''), options.api_key);
  }

  /** The caller's project (the key's; `default` on an open server), in the SDK's shape. */
  async getProjects(): Promise<{ id: string; name: string }[]> {
    return (await this.request<{ projects: { id: string; name: string }[] }>('GET', '/api/v1/projects')).projects;
  }

  /**
   * A model check ({prompt_template, check_type}) or a code check ({code, output_data_type}), as
   * `check`; or the SDK's `check_config` ({prompt_template | code_contents, type}). The same name again is a new version.
   */
  create_or_update_check(props: CheckCreateUpdateProps): Promise<SavedCheck> {
    const { name, description, check, check_config, project_id } = props;
    const project = project_id !== undefined ? { project_id } : {};
    let fields: Record<string, unknown>;
    if (check) fields = 'prompt_template' in check ? { prompt_template: check.prompt_template, check_type: check.check_type } : { ...check };
    else if (check_config?.prompt_template !== undefined) fields = { prompt_template: check_config.prompt_template, check_type: check_config.type ?? 'score' };
    else if (check_config?.code_contents !== undefined) fields = { code: check_config.code_contents, output_data_type: dataTypeOfCheckType(check_config.type) };
    else throw new Error('create_or_update_check needs check ({prompt_template, check_type} or {code, output_data_type}) or check_config');
    return this.request('POST', '/api/v1/checks', { name, description, ...project, ...fields });
  }

  /**
   * upload_check: the code of file_path, or generate_check's generated_code spread into the call
   * (`{project_id, ...generated_check}`); output_data_type (bool, int, float) decides the result type.
   * Python unless the file or the language says .ts/.js.
   */
  async upload_check(props: UploadEvaluatorProps): Promise<SavedCheck> {
    if (props.file_path === undefined && props.generated_code === undefined) throw new Error('upload_check needs file_path or generated_code');
    const code = props.file_path !== undefined ? await readFile(props.file_path, 'utf8') : props.generated_code!;
    const byFile = props.file_path === undefined ? undefined : /\.[cm]?js$/.test(props.file_path) ? 'javascript' : /\.[cm]?ts$/.test(props.file_path) ? 'typescript' : 'python';
    return this.request('POST', '/api/v1/checks', {
      name: props.name,
      description: props.description ?? 'No description provided',
      code,
      language: byFile ?? props.language ?? 'python',
      output_data_type: props.output_data_type ?? 'bool',
      requires_scenario_input: props.requires_scenario_input ?? false,
      requires_scenario_result: props.requires_scenario_result ?? false,
      update: props.update ?? false,
      ...(props.project_id !== undefined ? { project_id: props.project_id } : {}),
    });
  }

  /** generate_check: generated_code is a Python CodeBasedCheck (language "typescript" on request), not saved. */
  generate_check(spec: EvaluatorSpecRequest): Promise<GeneratedCheck> {
    return this.request('POST', '/api/v1/checks/generate', spec);
  }

  async get_all_checks(): Promise<CheckInfo[]> {
    return (await this.request<{ checks: CheckInfo[] }>('GET', '/api/v1/checks')).checks;
  }

  /** A check by id, name or display name. */
  async get_check(id: string): Promise<CheckInfo> {
    const found = (await this.get_all_checks()).find((c) => c.id === id || c.name === id || c.display_name === id);
    if (!found) throw new Error(`no check "${id}"`);
    return found;
  }

  /** Scores, newest first. */
  async get_scores(filter: { check?: string; unit_id?: string; limit?: number } = {}): Promise<Score[]> {
    const query = new URLSearchParams(Object.entries(filter).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
    return (await this.request<{ scores: Score[] }>('GET', `/api/v1/scores?${query.toString()}`)).scores;
  }

  /** Runs checks (names) on rows: one result per row and check, row by row; nothing is stored. */
  async score_rows(props: { checks: string[]; rows: ScoreRow[]; modes?: Record<string, CheckMode> }): Promise<RowResult[]> {
    return (await this.request<{ results: RowResult[] }>('POST', '/api/v1/checks/score', { checks: props.checks, rows: props.rows, ...(props.modes ? { modes: props.modes } : {}) })).results;
  }

  /** create_scenario_set: seed rows {input, result}; its scenario_id is what run_test runs over. */
  create_scenario_set(props: CreateScenarioProps): Promise<ScenarioSetResponse> {
    return this.request('POST', '/api/v1/scenario-sets', props);
  }

  /** The rows of a scenario set, with their ids. */
  async get_scenario_data_points(scenario_id: string): Promise<{ id: string; input: unknown; result: unknown }[]> {
    return (await this.request<{ data_points: { id: string; input: unknown; result: unknown }[] }>('GET', `/api/v1/scenario-sets/${encodeURIComponent(scenario_id)}/data-points`)).data_points;
  }

  /** register_model: a chat model with prompt templates (the server calls it), or a custom model whose invoke runs here. */
  async register_model(props: RegisterModelProps): Promise<ModelUnderTest> {
    const list = Array.isArray(props.models) ? props.models : [props.models];
    if (list.length !== 1) throw new Error('register_model takes one model');
    const model = list[0];
    const { type, ...params } = model;
    const custom: CustomModel | null = model.type === 'custom' ? model : null;
    const sent = custom ? { name: custom.name ?? props.name } : params;
    const mut = await this.request<ModelUnderTestResponse>('POST', '/api/v1/models', {
      name: props.name,
      tags: props.tags ?? [],
      models: { [type]: sent },
      update: props.update ?? false,
      ...(props.project_id !== undefined ? { project_id: props.project_id } : {}),
    });
    // The SDK prints the server's warning (a name registered with another definition).
    if (mut.warning) process.emitWarning(mut.warning);
    return new ModelUnderTest(this.request, mut, custom);
  }

  /** The project's test runs, newest first, with their summary metrics. */
  async find_test_runs(): Promise<TestRunItem[]> {
    return (await this.request<{ test_runs: TestRunItem[] }>('GET', '/api/v1/test-runs')).test_runs;
  }

  get_test_run(test_run_id: string): Promise<TestRunItem> {
    return this.request('GET', `/api/v1/test-runs/${encodeURIComponent(test_run_id)}`);
  }
}
