import { recordToCheckInput, runCheck, type CheckContext, type JudgeClient, type RunnableCheck } from '../checks/index.ts';
import { forEachLimited } from '../../runtime/flow/index.ts';
import type { GenerationModel, RowScore, ScenarioSetDoc, TestRunRow } from './docs.ts';

const CONCURRENCY = 4;

/** A seed value as checks read it: text stays text, anything else is its JSON. */
export function seedText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Okareo's prompt templates: `{scenario_input}` (and `{input}`) is the row's input; an unknown
 * `{name}` stays as written, as the documentation says of templates.
 */
export function renderModelTemplate(template: string, input: string): string {
  return template.replace(/\{(scenario_input|input)\}/g, () => input);
}

/** What produces each row's output: the chat model the server calls, or the outputs the client's callable gave. */
export type OutputSource = { kind: 'generation'; model: GenerationModel; client: JudgeClient | null } | { kind: 'given'; outputs: ReadonlyMap<string, string | null> };

async function outputOf(source: OutputSource, rowId: string, input: string): Promise<{ output: string | null; error: string | null }> {
  if (source.kind === 'given') {
    if (!source.outputs.has(rowId)) return { output: null, error: `the client gave no output for data point ${rowId}` };
    return { output: source.outputs.get(rowId) ?? null, error: null };
  }
  if (!source.client) return { output: null, error: 'no model configured: set OPENAI_BASE_URL (or OPENAI_API_KEY) to run a registered chat model' };
  const m = source.model;
  const system = m.system_prompt_template ? renderModelTemplate(m.system_prompt_template, input) : '';
  const user = m.user_prompt_template ? renderModelTemplate(m.user_prompt_template, input) : input;
  try {
    const answer = await source.client.complete({ system, user, ...(m.model_id ? { model: m.model_id } : {}), ...(typeof m.temperature === 'number' ? { temperature: m.temperature } : {}) });
    return { output: answer.text, error: null };
  } catch (err) {
    return { output: null, error: `the model failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Runs the model on every row of the scenario set and every check on its output, row by row. */
export async function executeTestRun(scenario: ScenarioSetDoc, source: OutputSource, checks: readonly RunnableCheck[], ctx: Omit<CheckContext, 'batch'>): Promise<TestRunRow[]> {
  const produced: Array<{ id: string; input: string | null; result: string | null; output: string | null; error: string | null }> = [];
  await forEachLimited(scenario.rows, CONCURRENCY, async (row, i) => {
    const input = seedText(row.input);
    const { output, error } = await outputOf(source, row.id, input ?? '');
    produced[i] = { id: row.id, input, result: seedText(row.result), output, error };
  });
  const inputs = produced.map((p) => {
    const messages = [...(p.input ? [{ role: 'user' as const, content: p.input }] : []), ...(p.output ? [{ role: 'assistant' as const, content: p.output }] : [])];
    return { ...recordToCheckInput({ id: p.id, messages, tools: [], scenario_input: p.input, scenario_result: p.result }), model_output: p.output };
  });
  // The rows are one evaluation, as in the SDK: uniqueness compares each output with the others.
  const full: CheckContext = { ...ctx, batch: inputs };
  const rows: TestRunRow[] = [];
  await forEachLimited(produced, CONCURRENCY, async (p, i) => {
    const scores: Record<string, RowScore> = {};
    for (const check of checks) {
      if (p.error !== null) {
        scores[check.name] = { status: 'not_run', value: null, passed: null, explanation: '', error: p.error };
        continue;
      }
      const o = await runCheck(check, inputs[i], full);
      scores[check.name] = o.status === 'ok' ? { status: 'ok', value: o.value, passed: o.passed, explanation: o.explanation ?? '', error: null } : { status: o.status, value: null, passed: null, explanation: o.explanation ?? '', error: o.error };
    }
    rows[i] = { id: p.id, scenario_input: p.input, scenario_result: p.result, model_output: p.output, error: p.error, scores };
  });
  return rows;
}
