import type { CheckContext, CheckInput, CheckRegistry, RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { runCheck } from '../../../shared/engines/checks/index.ts';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { EvalConfigError } from './eval-error.ts';
import type { CompiledExpression } from './expression/index.ts';
import { ExpressionError, looseEquals, toText, truthy } from './expression/index.ts';
import type { MetricResult } from './result-types.ts';
import type { MetricSpec, Place, Reference } from './suite-types.ts';

export interface SnippetRequest {
  source: string;
  vars: Record<string, unknown>;
  outputs: readonly string[];
  /** Variables whose `{name}` placeholders in the code are filled (as data) before it runs. */
  substitute?: Record<string, unknown>;
}

export type SnippetResult = { ok: true; values: Record<string, unknown> } | { ok: false; error: string };

/** Runs llmeval's Python snippets (the user's Python, user-python/); null when the run has none. */
export interface SnippetRunner {
  runSnippet(request: SnippetRequest): Promise<SnippetResult>;
}

export interface MetricEnv {
  registry: CheckRegistry | null;
  ctx: CheckContext;
  snippets: SnippetRunner | null;
}

export interface TryOutput {
  actual: string;
  messages: ChatMessage[];
  id: string;
}

/** Resolves check metrics once, before anything runs, so an unknown name is a configuration error. */
export function resolveChecks(metrics: readonly MetricSpec[], registry: CheckRegistry | null): Map<string, RunnableCheck> {
  const out = new Map<string, RunnableCheck>();
  for (const m of metrics) {
    if (m.kind !== 'check') continue;
    if (!registry) throw new EvalConfigError(`metric "${m.name}": checks are not available in this run`, m.place.file, m.place.line);
    let check: RunnableCheck | undefined;
    try {
      check = m.definition ? registry.createOrUpdateCheck(m.definition) : registry.get(m.checkName);
    } catch (err) {
      throw new EvalConfigError(`metric "${m.name}": ${(err as Error).message}`, m.place.file, m.place.line);
    }
    if (!check) {
      const known = registry.list().map((c) => c.name);
      throw new EvalConfigError(`metric "${m.name}": no check named "${m.checkName}" (known: ${known.join(', ') || 'none'}; or use exact_match, or value/pass expressions)`, m.place.file, m.place.line);
    }
    out.set(m.name, check);
  }
  return out;
}

function evalAt(expr: CompiledExpression, vars: Record<string, unknown>, metric: string, what: string, place: Place): unknown {
  try {
    return expr.evaluate(vars);
  } catch (err) {
    if (err instanceof ExpressionError) {
      throw new EvalConfigError(`metric "${metric}" ${what} "${expr.source}" failed: ${err.message}`, place.file, place.line);
    }
    throw err;
  }
}

function toValue(v: unknown): MetricResult['value'] {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}

/** What a check reads from one try: the prompt as sent, the output, the reference's expected value. */
export function checkInput(out: TryOutput, ref: Reference): CheckInput {
  const sent = out.messages.slice(0, -1);
  const lastUser = [...sent].reverse().find((m) => m.role === 'user');
  return {
    id: out.id,
    model_output: out.actual,
    scenario_input: lastUser?.content ?? null,
    scenario_result: ref.hasExpected ? toText(ref.expected) : null,
    model_input: sent,
    message_history: out.messages,
    tool_calls: [],
    tools: [],
    simulation_message_history: null,
    audio_messages: null,
    audio_output: null,
  };
}

/** Python's truth of a value that came back as JSON: None, False, 0, '' and empty containers are false. */
export function pythonTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** The prompt as sent, as text: every message's content, in order. */
function promptText(out: TryOutput): string {
  return out.messages.slice(0, -1).map((m) => m.content ?? '').join('\n');
}

/**
 * llmeval's metric code: `metric` is the value, `result` the verdict; one alone stands for both
 * (a boolean `metric` passes or fails, a number only reports).
 */
async function runCodeMetric(name: string, code: string, out: TryOutput, ref: Reference, snippets: SnippetRunner | null): Promise<MetricResult> {
  if (!snippets) return { name, value: null, passed: false, error: 'Python metrics need Python, which this run has not' };
  // As llmeval sets it: `expected` only when the reference has one, so code reading it without one
  // fails (NameError) and fails the test, as documented.
  const vars = { actual: out.actual, ...(ref.hasExpected ? { expected: ref.expected } : {}), prompt: promptText(out), input: ref.input, messages: out.messages };
  const res = await snippets.runSnippet({ source: code, vars, outputs: ['metric', 'result'], substitute: ref.input });
  if (!res.ok) return { name, value: null, passed: false, method: 'code', error: `metric code failed: ${res.error}` };
  const { metric, result } = res.values;
  if (metric === undefined && result === undefined) return { name, value: null, passed: false, method: 'code', error: 'metric code set neither metric nor result' };
  const value = toValue(metric ?? result);
  // llmeval's reports write a verdict as "pass" / "fail"; code that sets those words means them.
  const verdict = (v: unknown): boolean => (v === 'pass' ? true : v === 'fail' ? false : pythonTruthy(v));
  const passed = result !== undefined ? verdict(result) : typeof metric === 'boolean' ? metric : null;
  return { name, value, passed, method: 'code' };
}

/**
 * Scores one try. A metric expression that throws is a configuration error (EvalConfigError with
 * the metric's file and line); a check that errors is a failed metric with its error reported.
 */
export async function runMetrics(metrics: readonly MetricSpec[], checks: ReadonlyMap<string, RunnableCheck>, out: TryOutput, ref: Reference, env: MetricEnv): Promise<MetricResult[]> {
  const results: MetricResult[] = [];
  const vars = { actual: out.actual, expected: ref.expected, input: ref.input, messages: out.messages };
  for (const m of metrics) {
    if (m.kind === 'exact_match') {
      if (!ref.hasExpected) {
        results.push({ name: m.name, value: null, passed: false, error: 'reference has no expected value' });
        continue;
      }
      const norm = (s: string): string => (m.ignoreCase ? s.trim().toLowerCase() : s.trim());
      const ok = norm(out.actual) === norm(toText(ref.expected)) || looseEquals(out.actual, ref.expected);
      results.push({ name: m.name, value: ok ? 1 : 0, passed: ok });
    } else if (m.kind === 'code') {
      results.push(await runCodeMetric(m.name, m.code, out, ref, env.snippets));
    } else if (m.kind === 'expression') {
      const value = m.value ? evalAt(m.value, vars, m.name, 'value', m.valuePlace) : undefined;
      if (m.pass) {
        const passed = truthy(evalAt(m.pass, { ...vars, value: value ?? null }, m.name, 'pass', m.passPlace));
        results.push({ name: m.name, value: value === undefined ? passed : toValue(value), passed });
      } else {
        results.push({ name: m.name, value: toValue(value), passed: typeof value === 'boolean' ? value : null });
      }
    } else {
      const check = checks.get(m.name)!;
      // Compared with the other outputs of the prompt once they are all there (row-metrics.ts).
      if (check.comparesRows) continue;
      const outcome = await runCheck(check, checkInput(out, ref), env.ctx);
      const decided = { method: outcome.method, checkVersion: check.version };
      if (outcome.status === 'ok') {
        results.push({ name: m.name, value: outcome.value, passed: outcome.passed, ...decided, ...(outcome.explanation ? { explanation: outcome.explanation } : {}) });
      } else {
        results.push({ name: m.name, value: null, passed: false, ...decided, error: `${outcome.status}: ${outcome.error}` });
      }
    }
  }
  return results;
}
