/**
 * tracecheck's TypeScript client: the Okareo SDK's check calls (create_or_update_check,
 * get_all_checks, generate_check, upload_check) and score reading, over Node 20's fetch.
 * `new Okareo({api_key})` becomes `new Tracecheck({api_key, base_url})`; the calls are the same.
 */
import { readFile } from 'node:fs/promises';

export const CheckOutputType = { SCORE: 'SCORE', PASS_FAIL: 'PASS_FAIL' } as const;
export type CheckOutputType = (typeof CheckOutputType)[keyof typeof CheckOutputType];
export type OutputDataType = 'bool' | 'int' | 'float';

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

export interface EvaluatorSpecRequest {
  description: string;
  requires_scenario_input?: boolean;
  requires_scenario_result?: boolean;
  output_data_type: OutputDataType;
  language?: 'python' | 'typescript';
}

export interface SavedCheck {
  name: string;
  version: string;
  changed: boolean;
  versions: { version: string; created_at_ms: number }[];
}

export interface CheckInfo {
  name: string;
  source: 'catalog' | 'user';
  kind: 'model' | 'code' | 'builtin';
  output_type: 'pass_fail' | 'score';
  description: string;
  version: string;
  versions: { version: string; created_at_ms: number }[];
}

export interface GeneratedCheck extends Required<EvaluatorSpecRequest> {
  name?: string;
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

export class TracecheckError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`${status}: ${message}`);
    this.name = 'TracecheckError';
  }
}

export interface TracecheckOptions {
  api_key?: string;
  base_url?: string;
}

export class Tracecheck {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;

  constructor(options: TracecheckOptions = {}) {
    this.baseUrl = (options.base_url ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    this.apiKey = options.api_key;
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: string }).error ?? text;
      } catch {
        // Not JSON: the text is the message.
      }
      throw new TracecheckError(res.status, message);
    }
    return JSON.parse(text) as T;
  }

  /** A model check ({prompt_template, check_type}) or a code check ({code, output_data_type}); the same name again is a new version. */
  create_or_update_check(props: { name: string; description: string; check: ModelBasedCheck | CodeBasedCheck }): Promise<SavedCheck> {
    const { name, description, check } = props;
    const body = 'prompt_template' in check ? { name, description, prompt_template: check.prompt_template, check_type: check.check_type } : { name, description, ...check };
    return this.request('POST', '/api/v1/checks', body);
  }

  /** upload_check: the file's source; output_data_type (bool, int, float) decides the result type. Python unless the file is .ts/.js. */
  async upload_check(props: { name: string; file_path: string; requires_scenario_input?: boolean; requires_scenario_result?: boolean; output_data_type?: OutputDataType; description?: string; update?: boolean }): Promise<SavedCheck> {
    const code = await readFile(props.file_path, 'utf8');
    const language = /\.[cm]?js$/.test(props.file_path) ? 'javascript' : /\.[cm]?ts$/.test(props.file_path) ? 'typescript' : 'python';
    return this.request('POST', '/api/v1/checks', {
      name: props.name,
      description: props.description ?? 'No description provided',
      code,
      language,
      output_data_type: props.output_data_type ?? 'bool',
      requires_scenario_input: props.requires_scenario_input ?? false,
      requires_scenario_result: props.requires_scenario_result ?? false,
      update: props.update ?? false,
    });
  }

  /** generate_check: generated_code is a Python CodeBasedCheck (language "typescript" on request), not saved. */
  generate_check(spec: EvaluatorSpecRequest & { name?: string }): Promise<GeneratedCheck> {
    return this.request('POST', '/api/v1/checks/generate', spec);
  }

  async get_all_checks(): Promise<CheckInfo[]> {
    return (await this.request<{ checks: CheckInfo[] }>('GET', '/api/v1/checks')).checks;
  }

  /** Scores, newest first. */
  async get_scores(filter: { check?: string; unit_id?: string; limit?: number } = {}): Promise<Score[]> {
    const query = new URLSearchParams(Object.entries(filter).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])));
    return (await this.request<{ scores: Score[] }>('GET', `/api/v1/scores?${query.toString()}`)).scores;
  }

  /**
   * Runs checks (names) on rows: one result per row and check, row by row; nothing is stored.
   * `modes` sets how a judge-described check decides: `{loop_guard: 'judge'}`.
   */
  async score_rows(props: { checks: string[]; rows: ScoreRow[]; modes?: Record<string, CheckMode> }): Promise<RowResult[]> {
    return (await this.request<{ results: RowResult[] }>('POST', '/api/v1/checks/score', { checks: props.checks, rows: props.rows, ...(props.modes ? { modes: props.modes } : {}) })).results;
  }
}
