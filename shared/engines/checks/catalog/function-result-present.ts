import { builtinEntry } from '../builtin-check.ts';
import { FUNCTION_RESULT_PRESENT_RUBRIC } from './judge-rubrics.ts';
import { describeCall, toolResultProblem } from '../lib/tool-results.ts';
import { settled } from '../lib/judge-mode.ts';
import { passFail } from '../outcome.ts';

/** A JSON object, list, number or boolean result (the error shapes are found before). */
function structured(result: string | null): boolean {
  try {
    const v: unknown = JSON.parse(result ?? '');
    return v !== null && typeof v !== 'string';
  } catch {
    return false;
  }
}

/** Every tool call has a result, and no result is null, empty or an error. */
export const functionResultPresent = builtinEntry(
  {
    kind: 'builtin',
    name: 'function_result_present',
    description:
      'Every tool call has a result, and no result is missing, null, None, empty or an error (error status, "Error: …"/"Traceback" text, {"error": …} or {"status": "error"} JSON). `[]` and `{}` are results ("nothing found"). Tools that return nothing by design (param emptyResultTools, default ["think"], the tau-bench/Anthropic think tool) may return empty text. Passes when there are no tool calls.',
    outputType: 'pass_fail',
    implementationVersion: '3',
    params: { emptyResultTools: ['think'] },
  },
  ['tool_calls'],
  (input, _ctx, def) => {
    const raw = def.params?.emptyResultTools;
    const emptyOk = new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []);
    if (input.tool_calls.length === 0) return settled(passFail(true, 'deterministic', 'no tool calls'));
    const problems: string[] = [];
    input.tool_calls.forEach((call, i) => {
      const problem = toolResultProblem(call.result, call.error, emptyOk.has(call.name));
      if (problem !== null) problems.push(`${describeCall(call, i)}: ${problem}`);
    });
    if (problems.length === 0) {
      const out = passFail(true, 'deterministic', `all ${input.tool_calls.length} tool calls have a result`);
      // Structured results settle it; a text result may still say it failed ("order not found"): the judge reads it.
      return input.tool_calls.every((c) => structured(c.result) || emptyOk.has(c.name)) ? settled(out) : out;
    }
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
    return settled(passFail(false, 'deterministic', `${problems.length} of ${input.tool_calls.length} tool calls lack a usable result: ${shown}${more}`));
  },
  { judge: FUNCTION_RESULT_PRESENT_RUBRIC },
);
