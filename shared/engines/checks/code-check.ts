import type { CheckContext, CheckInput, CheckOutcome, RunnableCheck } from './contract.ts';
import type { CodeCheckDefinition } from './definition.ts';
import { CheckDefinitionError, definitionVersion, effectiveRange, validateCommon } from './definition.ts';
import { errorOutcome, notRun, valueOutcome } from './outcome.ts';

/** The longest a code check may run per unit: its process is killed then, and others wait at most this. */
export const MAX_CODE_CHECK_TIMEOUT_MS = 10_000;
/** Sources past this are refused (a check is a small module; a huge one is a way to fill memory). */
const MAX_CODE_CHECK_SOURCE_CHARS = 1_000_000;

export function codeCheckProblems(def: CodeCheckDefinition): string[] {
  const problems = validateCommon(def);
  if (typeof def.source !== 'string' || def.source.trim() === '') problems.push('source is empty');
  else if (def.source.length > MAX_CODE_CHECK_SOURCE_CHARS) problems.push(`source is ${def.source.length} characters; at most ${MAX_CODE_CHECK_SOURCE_CHARS} are allowed`);
  else if (!/\bevaluate\b/.test(def.source)) problems.push('source does not define evaluate');
  if (def.timeoutMs !== undefined && (typeof def.timeoutMs !== 'number' || !Number.isInteger(def.timeoutMs) || def.timeoutMs < 1 || def.timeoutMs > MAX_CODE_CHECK_TIMEOUT_MS)) {
    problems.push(`timeoutMs must be a whole number of milliseconds from 1 to ${MAX_CODE_CHECK_TIMEOUT_MS} (got ${typeof def.timeoutMs === 'number' ? String(def.timeoutMs) : JSON.stringify(def.timeoutMs)})`);
  }
  if (def.language !== 'typescript' && def.language !== 'javascript' && def.language !== 'python') problems.push('language must be typescript, javascript or python');
  if (def.requires !== undefined && (!Array.isArray(def.requires) || def.requires.some((r) => r !== 'scenario_input' && r !== 'scenario_result'))) problems.push('requires may name scenario_input and scenario_result only');
  return problems;
}

/** The arguments a code check's `evaluate(args)` receives: the template variables, as plain JSON. */
export function codeCheckArgs(input: CheckInput): Record<string, unknown> {
  return {
    id: input.id,
    model_output: input.model_output,
    generation: input.model_output,
    scenario_input: input.scenario_input,
    scenario_result: input.scenario_result,
    model_input: input.model_input,
    message_history: input.message_history,
    tool_calls: input.tool_calls,
    tools: input.tools,
    simulation_message_history: input.simulation_message_history,
    audio_messages: input.audio_messages,
    audio_output: input.audio_output,
  };
}

/** Checks a code check's return value against its declared output type. */
/** A documented `CheckResponse(score, explanation)` from the Python sandbox, else the value as returned. */
export function unwrapCheckResponse(value: unknown): { value: unknown; explanation?: string } {
  if (typeof value !== 'object' || value === null || (value as { check_response?: unknown }).check_response !== true) return { value };
  const r = value as { score?: unknown; explanation?: unknown };
  return { value: r.score ?? null, ...(typeof r.explanation === 'string' && r.explanation !== '' ? { explanation: r.explanation } : {}) };
}

export function coerceCodeValue(def: CodeCheckDefinition, returned: unknown): { ok: true; value: number } | { ok: false; error: string } {
  const { value } = unwrapCheckResponse(returned);
  if (def.outputType === 'pass_fail') {
    if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
    return { ok: false, error: `evaluate returned ${describeValue(value)}; a pass_fail check must return a boolean` };
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    const [lo, hi] = effectiveRange(def);
    if (value < lo || value > hi) return { ok: false, error: `evaluate returned ${value}, outside [${lo}, ${hi}]` };
    return { ok: true, value };
  }
  if (typeof value === 'boolean') return { ok: true, value: value ? 1 : 0 };
  return { ok: false, error: `evaluate returned ${describeValue(value)}; a score check must return a finite number` };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return `a string (${JSON.stringify(value.slice(0, 40))})`;
  return typeof value === 'object' ? (Array.isArray(value) ? 'an array' : 'an object') : typeof value;
}

/** A user's module exporting `evaluate(args)`, run through `ctx.codeRunner` (an isolated process). */
export function createCodeCheck(def: CodeCheckDefinition): RunnableCheck {
  const problems = codeCheckProblems(def);
  if (problems.length > 0) throw new CheckDefinitionError(problems);
  return {
    name: def.name,
    version: definitionVersion(def),
    kind: 'code',
    outputType: def.outputType,
    description: def.description,
    ...(def.outputType === 'score' ? { range: effectiveRange(def) } : {}),
    ...(def.threshold !== undefined ? { threshold: def.threshold } : {}),
    usesCodeRunner: true,
    async run(input: CheckInput, ctx: CheckContext): Promise<CheckOutcome> {
      const missing = (def.requires ?? []).filter((r) => input[r] === null);
      if (missing.length > 0) return notRun('code', `needs ${missing.join(', ')}, which this unit does not carry`);
      if (!ctx.codeRunner) return notRun('code', 'no code sandbox configured for user code checks');
      const result = await ctx.codeRunner.evaluate({
        source: def.source,
        language: def.language,
        args: codeCheckArgs(input),
        ...(ctx.project !== undefined ? { project: ctx.project } : {}),
        ...(def.timeoutMs !== undefined ? { timeoutMs: def.timeoutMs } : {}),
      });
      if (!result.ok) return errorOutcome('code', result.error);
      const coerced = coerceCodeValue(def, result.value);
      if (!coerced.ok) return errorOutcome('code', coerced.error);
      const { explanation } = unwrapCheckResponse(result.value);
      return valueOutcome(def, coerced.value, 'code', explanation ?? `evaluate returned ${JSON.stringify(result.value)}`);
    },
  };
}
