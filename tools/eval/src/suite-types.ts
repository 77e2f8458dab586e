import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import type { CheckDefinition } from '../../../shared/engines/checks/index.ts';
import type { CompiledExpression } from './expression/index.ts';
import type { Template } from './template.ts';

/** Where a value was written, for error messages and report links. */
export interface Place {
  file: string;
  line: number | undefined;
}

export interface MainConfig {
  file: string;
  dir: string;
  /** Absolute paths of the selected prompt files. */
  promptFiles: string[];
  /** Only prompts with these names (CLI `prompts=a,b`); null = all. */
  promptNames: string[] | null;
  outputDir: string;
  cacheDir: string | null;
  nTries: number;
  concurrency: number;
  timeoutMs: number;
  runId: string | null;
  /** Raw config, for the report that mirrors it. */
  raw: Record<string, unknown>;
  /** Settings accepted but not applied (llmeval's `hydra:`), each one line for the user. */
  notes: string[];
}

export type MetricSpec =
  | { kind: 'exact_match'; name: string; ignoreCase: boolean; place: Place }
  | { kind: 'expression'; name: string; value: CompiledExpression | null; pass: CompiledExpression | null; place: Place; valuePlace: Place; passPlace: Place }
  | { kind: 'check'; name: string; checkName: string; definition: CheckDefinition | null; place: Place }
  /** llmeval's Python metric: sets `metric` (the value) and/or `result` (pass/fail), from actual, expected, prompt, input. */
  | { kind: 'code'; name: string; code: string; place: Place };

export interface Reference {
  index: number;
  /** `id` from the file, else its 1-based position. */
  id: string;
  input: Record<string, unknown>;
  expected: unknown;
  hasExpected: boolean;
  skip: boolean;
  place: Place;
}

export type PromptSource =
  | { kind: 'messages'; messages: Array<{ role: ChatMessage['role']; template: Template }> }
  | { kind: 'module'; path: string; messages: Array<{ role: ChatMessage['role']; template: Template }> | null }
  /** llmeval's custom message code (Python): sets `output`, or `messages` to send to the model instead. */
  | { kind: 'python'; code: string; messages: Array<{ role: ChatMessage['role']; template: Template }> | null };

export interface PromptSuite {
  name: string;
  file: string;
  place: Place;
  /** Model plus every pass-through hyperparameter, before sweeps. */
  params: Record<string, unknown>;
  variables: Record<string, unknown>;
  source: PromptSource;
  metrics: MetricSpec[];
  references: Reference[];
  nTries: number;
  /** Null: the default policy (fail if any try fails; skipped references do not fail the suite). */
  rollup: CompiledExpression | null;
  rollupSource: string;
  /** llmeval's `metrics_rollup: {name, code}`: Python over the counts, setting `result`; skipped references are then not special. */
  rollupCode: string | null;
  rollupPlace: Place;
  /** Grid of parameter values; every combination is one variant. */
  sweep: Record<string, unknown[]>;
  baseUrl: string | null;
  apiKey: string | null;
  /** The composed prompt file as written (defaults merged), for the report. */
  raw: Record<string, unknown>;
}

export interface Suite {
  config: MainConfig;
  prompts: PromptSuite[];
}
