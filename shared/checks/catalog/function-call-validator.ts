import { builtinEntry } from '../builtin-check.ts';
import { callSchemaProblems } from '../lib/tool-schemas.ts';
import { describeCall } from '../lib/tool-results.ts';
import { notRun, passFail } from '../outcome.ts';

/** Every call names a defined tool and its arguments validate against that tool's JSON Schema. */
export const functionCallValidator = builtinEntry(
  {
    kind: 'builtin',
    name: 'function_call_validator',
    description: 'Every tool call names a tool that exists in the tool definitions, with arguments that are JSON and validate against its JSON Schema (ajv): required parameters present, types and enums respected. Needs tool definitions.',
    outputType: 'pass_fail',
    implementationVersion: '1',
  },
  ['tool_calls', 'tools'],
  (input) => {
    if (input.tools.length === 0) return notRun('deterministic', 'the unit carries no tool definitions to validate calls against');
    if (input.tool_calls.length === 0) return passFail(true, 'deterministic', 'no tool calls');
    const problems = input.tool_calls.flatMap((c, i) => callSchemaProblems(c, input.tools).map((p) => `${describeCall(c, i)}: ${p}`));
    if (problems.length === 0) return passFail(true, 'deterministic', `all ${input.tool_calls.length} tool calls match their tool definitions`);
    return passFail(false, 'deterministic', `${problems.length} problems: ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? '; …' : ''}`);
  },
);
