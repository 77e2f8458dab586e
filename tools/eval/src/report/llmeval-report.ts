import { stringify } from 'yaml';
import type { MetricResult, PromptResult, RowResult, RunResult } from '../result-types.ts';

/** One of llmeval's report files: one prompt × one hyperparameter combination × one try. */
export interface LlmevalReportFile {
  /** llmeval's own version field; null: not written by llmeval (its reader then assumes the latest). */
  version: null;
  n_tries: number;
  prompts: Record<string, unknown> & { name: string; tests: { metrics: unknown; metrics_rollup?: unknown; references: LlmevalReference[] } };
}

interface LlmevalReference {
  input: Record<string, unknown>;
  expected?: unknown;
  skip?: true;
  actual: string;
  metrics: Record<string, { metric: unknown; result: 'pass' | 'fail'; skipped?: true }>;
}

/** The prompt's variables as llmeval lists them: `[{name}]`, whichever form the file used. */
function variablesOf(config: Record<string, unknown>, rows: readonly RowResult[]): Array<{ name: string }> {
  const v = config.variables;
  if (Array.isArray(v)) return v.map((x: unknown) => ({ name: typeof x === 'string' ? x : String((x as { name?: unknown }).name) }));
  if (v !== null && typeof v === 'object') return Object.keys(v).map((name) => ({ name }));
  return Object.keys(rows[0]?.reference.input ?? {}).map((name) => ({ name }));
}

function metricEntry(m: MetricResult | undefined, skip: boolean): LlmevalReference['metrics'][string] {
  const ok = m !== undefined && m.passed !== false && m.error === undefined;
  return { metric: m?.value ?? m?.error ?? null, result: ok ? 'pass' : 'fail', ...(skip ? { skipped: true as const } : {}) };
}

function reference(row: RowResult, t: number, metrics: readonly string[]): LlmevalReference {
  const attempt = row.tries[t];
  return {
    input: row.reference.input,
    ...(row.reference.expected === null || row.reference.expected === undefined ? {} : { expected: row.reference.expected }),
    ...(row.reference.skip ? { skip: true as const } : {}),
    actual: attempt?.actual ?? `error: ${attempt?.error ?? 'not run'}`,
    metrics: Object.fromEntries(metrics.map((name) => [name, metricEntry(attempt?.metrics.find((m) => m.name === name), row.reference.skip)])),
  };
}

/** Rows grouped by hyperparameters (one llmeval job each), in first-seen order. */
export function byVariant(rows: readonly RowResult[]): RowResult[][] {
  const groups = new Map<string, RowResult[]>();
  for (const r of rows) {
    const key = JSON.stringify(r.params);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/**
 * The run as llmeval's report files: `prompts:` holds the prompt's name, hyperparameters,
 * variables and messages (or code), and `tests:` its metrics, roll-up and references, each with
 * `actual` and `metrics: {name: {metric, result: pass|fail}}`. One file per prompt × hyperparameter
 * combination × try, as llmeval writes one per job, with `n_tries` beside.
 */
export function llmevalReportFiles(run: RunResult): LlmevalReportFile[] {
  return llmevalJobs(run).flat();
}

/** The same files per job (prompt × hyperparameter combination), each job's files in try order. */
export function llmevalJobs(run: RunResult): LlmevalReportFile[][] {
  return run.prompts.flatMap((p) => byVariant(p.rows).map((rows) => Array.from({ length: p.nTries }, (_, t) => reportFile(p, rows, t))));
}

function reportFile(p: PromptResult, rows: readonly RowResult[], t: number): LlmevalReportFile {
  const c = p.config;
  const source = c.code !== undefined ? { code: c.code } : c.messages !== undefined ? { messages: c.messages } : c.prompt !== undefined ? { messages: [{ role: 'user', content: typeof c.prompt === 'string' ? c.prompt : (c.prompt as { content?: unknown }).content }] } : {};
  return {
    version: null,
    n_tries: p.nTries,
    prompts: {
      name: p.name,
      ...(rows[0]?.params ?? {}),
      variables: variablesOf(c, rows),
      ...source,
      tests: {
        metrics: c.metrics ?? p.metrics,
        ...(c.metrics_rollup !== undefined ? { metrics_rollup: c.metrics_rollup } : {}),
        references: rows.map((r) => reference(r, t, p.metrics)),
      },
    },
  };
}

export function renderLlmevalReportFile(file: LlmevalReportFile): string {
  return stringify(file, { lineWidth: 0, aliasDuplicateObjects: false });
}
