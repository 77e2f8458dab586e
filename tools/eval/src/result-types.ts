import type { ChatMessage, ScoreMethod } from '../../../shared/contracts/schemas/index.ts';

export interface MetricResult {
  name: string;
  value: number | string | boolean | null;
  /** Null: the metric reports a value but does not decide pass/fail. */
  passed: boolean | null;
  error?: string;
  explanation?: string;
  /** How the value was decided: `code` for expressions and exact match, else the check's own. */
  method?: ScoreMethod;
  /** The check's version, for catalog and user checks. */
  checkVersion?: string;
}

export interface TryResult {
  try: number;
  actual: string | null;
  messages?: ChatMessage[];
  /** The generation failed (after the client's retries). */
  error?: string;
  metrics: MetricResult[];
  passed: boolean;
  cached: boolean;
  latencyMs: number;
}

export interface RollupCounts {
  num_passes: number;
  num_fails: number;
  num_skip_passes: number;
  num_skip_fails: number;
  n_tries: number;
}

export type RowStatus = 'pass' | 'fail' | 'skip';

/** llmeval's `metrics_rollup: {name, code}` decided once per test (prompt variant) over all its references. */
export interface TestRollup {
  name: string;
  params: Record<string, unknown>;
  counts: RollupCounts;
  result: 'pass' | 'fail';
}

export interface RowResult {
  prompt: string;
  /** Model and hyperparameters of this variant (after sweeps and overrides). */
  params: Record<string, unknown>;
  reference: { id: string; input: Record<string, unknown>; expected: unknown; skip: boolean };
  tries: TryResult[];
  counts: RollupCounts;
  status: RowStatus;
}

interface RunSummary {
  rows: number;
  passed: number;
  failed: number;
  skipped: number;
  tries: number;
  cachedTries: number;
  resumedTries: number;
}

export interface PromptResult {
  name: string;
  file: string;
  /** The prompt file as composed (defaults merged), mirrored in the YAML report. */
  config: Record<string, unknown>;
  metrics: string[];
  rollup: string;
  nTries: number;
  rows: RowResult[];
  /** Per test (variant) verdicts of llmeval roll-up code; absent otherwise. With them, they decide the prompt. */
  tests?: TestRollup[];
}

export interface RunResult {
  runId: string;
  configFile: string;
  config: Record<string, unknown>;
  startedAt: string;
  finishedAt: string;
  passed: boolean;
  summary: RunSummary;
  prompts: PromptResult[];
}
