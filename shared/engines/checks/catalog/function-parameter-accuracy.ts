import type { ChatMessage } from '../../../contracts/schemas/index.ts';
import { builtinEntry } from '../builtin-check.ts';
import { FUNCTION_PARAMETER_ACCURACY_RUBRIC } from './judge-rubrics.ts';
import { callSchemaProblems } from '../lib/tool-schemas.ts';
import { describeCall } from '../lib/tool-results.ts';
import { settled } from '../lib/judge-mode.ts';
import { passFail } from '../outcome.ts';
import type { BuiltinCheckDefinition } from '../definition.ts';

/** Argument values worth checking against the dialog: identifiers, codes, emails, numbers; not prose or flags. */
function checkableValues(value: unknown, path: string, out: { path: string; text: string }[]): void {
  if (typeof value === 'string') {
    if (/^[\w.@+\-:/#]{3,64}$/.test(value) && /[\d@_#]/.test(value)) out.push({ path, text: value });
  } else if (typeof value === 'number') {
    if (Number.isFinite(value) && Math.abs(value) >= 10) out.push({ path, text: String(value) });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkableValues(v, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkableValues(v, path ? `${path}.${k}` : k, out);
  }
}

function stated(text: string, haystack: string): boolean {
  const needle = text.toLowerCase();
  if (haystack.includes(needle)) return true;
  // Numbers are stated as "1,200" or "1200.00" as often as "1200".
  const n = Number(text);
  return Number.isFinite(n) && new RegExp(`(^|[^\\d.])${n.toLocaleString('en-US').replace(/[,.]/g, '[,.]?')}(\\.0+)?($|[^\\d])`).test(haystack.replace(/,/g, ''));
}

/** What the dialog had said before message `upTo`: user and system turns, tool results, earlier arguments. */
function dialogBefore(messages: readonly ChatMessage[], upTo: number): string {
  return messages
    .slice(0, upTo)
    .map((m) => [m.content ?? '', ...(m.tool_calls ?? []).map((t) => t.function.arguments)].join('\n'))
    .join('\n')
    .toLowerCase();
}

export const functionParameterAccuracy = builtinEntry(
  {
    kind: 'builtin',
    name: 'function_parameter_accuracy',
    description:
      'Passes when every tool call\'s arguments are accurate: every identifier-like value (ids, codes, emails, numbers ≥ 10) was stated in the dialog or a tool result before the call, and, when tools are defined, the arguments validate against the schema. Pass/fail, as documented; the explanation counts the accurate calls.',
    outputType: 'pass_fail',
    implementationVersion: '3',
  } satisfies BuiltinCheckDefinition,
  ['tool_calls', 'message_history', 'tools'],
  (input) => {
    const history = input.message_history;
    if (input.tool_calls.length === 0) return settled(passFail(true, 'deterministic', 'no tool calls'));
    const callPos = new Map<string, number>();
    history.forEach((m, i) => m.tool_calls?.forEach((t) => callPos.set(t.id, i)));
    const problems: string[] = [];
    let accurate = 0;
    // A schema violation or unreadable arguments settle a failure; a value's provenance is the judge's to weigh.
    let certainFailure = false;
    let allEmpty = true;
    input.tool_calls.forEach((call, i) => {
      const found: string[] = input.tools.length > 0 ? callSchemaProblems(call, input.tools) : [];
      let args: unknown = {};
      try {
        args = JSON.parse(call.arguments || '{}');
      } catch {
        found.push('arguments are not valid JSON');
      }
      if (found.length > 0) certainFailure = true;
      if (args === null || typeof args !== 'object' || Object.keys(args).length > 0) allEmpty = false;
      const values: { path: string; text: string }[] = [];
      checkableValues(args, '', values);
      const before = dialogBefore(history, callPos.get(call.id) ?? history.length);
      for (const v of values) if (!stated(v.text, before)) found.push(`${v.path}=${v.text} was not stated before the call`);
      if (found.length === 0) accurate++;
      else problems.push(`${describeCall(call, i)}: ${found.join(', ')}`);
    });
    const head = `${accurate} of ${input.tool_calls.length} tool calls have accurate parameters`;
    const out = passFail(problems.length === 0, 'deterministic', problems.length === 0 ? head : `${head}; ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}`);
    return certainFailure || (problems.length === 0 && allEmpty) ? settled(out) : out;
  },
  { judge: FUNCTION_PARAMETER_ACCURACY_RUBRIC },
);
