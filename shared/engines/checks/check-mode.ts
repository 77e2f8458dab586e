import type { RunnableCheck } from './contract.ts';
import { CheckDefinitionError } from './definition.ts';
import type { JudgeMode } from './lib/judge-mode.ts';
import { buildCheck, type CheckRegistry } from './registry.ts';

export { decidedBy,  JUDGE_MODES, type JudgeMode } from './lib/judge-mode.ts';

/**
 * The check of that name under another mode: its current definition with `mode` replaced, so the
 * version (and the scores' check_version) says which mode made a score. Throws CheckDefinitionError
 * naming the check when it has no mode (a model or code check, or a builtin decided in code only).
 */
export function checkInMode(registry: CheckRegistry, name: string, mode: JudgeMode): RunnableCheck {
  const def = registry.definition(name);
  if (!def) throw new CheckDefinitionError([`no check named "${name}"`]);
  if (def.kind !== 'builtin') throw new CheckDefinitionError([`${name} is a ${def.kind} check; mode applies to the catalog checks decided in code or by the judge (model_refusal, loop_guard, automated_resolution, response_loop, simulation_trace_consistency, function_parameter_accuracy, function_result_present)`]);
  return buildCheck({ ...def, mode }, registry.catalogEntry(name));
}

/** Problems with a set of modes for these checks: a mode for a check not listed, or a check without modes. */
export function checkModeProblems(registry: CheckRegistry, checks: readonly string[], modes: Record<string, JudgeMode>, at: string): string[] {
  return Object.entries(modes).flatMap(([name, mode]) => {
    if (!checks.includes(name)) return [`${at}.${name}: "${name}" is not among the checks`];
    if (!registry.definition(name)) return [];
    try {
      checkInMode(registry, name, mode);
      return [];
    } catch (err) {
      if (err instanceof CheckDefinitionError) return [`${at}.${name}: ${err.problems.join('; ')}`];
      throw err;
    }
  });
}
