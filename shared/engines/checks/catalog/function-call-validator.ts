import { builtinEntry } from '../builtin-check.ts';
import { askJudge } from '../lib/ask-judge.ts';
import { callSchemaProblems } from '../lib/tool-schemas.ts';
import { describeCall } from '../lib/tool-results.ts';
import { buildJudgePrompt } from '../judge-prompt.ts';
import { passFail } from '../outcome.ts';

const RUBRIC = `# Task
Decide whether the AI agent called the right tools, in the right sequence, for what the user asked.

# Criteria
- Each call uses the tool that fits its step of the request, among the tools offered.
- The calls come in an order that works: a call that needs another's result comes after it; nothing required is skipped.
- Calls that serve no part of the request, or a wrong tool where a fitting one was offered, fail.
- No call at all fails when the request needed one of the tools offered; it passes when no tool was needed.

# Steps
1. Read the dialog to find what the user asked.
2. List the steps the request needs and the offered tool for each.
3. Compare with the tool calls made, in order.
4. Answer True only if the right tools were called in a workable order.

# Example
Dialog: the user asks to cancel order W1 after checking its status. Calls: cancel_order(W1), then get_order_status(W1).
Answer: [[False]] ((it cancelled before checking the status the user asked for first))

# Inputs
- Dialog: {message_history}
- Tools offered: {tools}
- Tool calls, in order: {tool_calls}

# Output format
Reply [[True]] or [[False]], then a one-sentence explanation in double parentheses, e.g. [[True]] ((why)).`;

/**
 * The judge decides whether the right tools were called in the right sequence, as the definition
 * has it. The JSON Schema check of each call's arguments (ours, beyond the definition) is named in
 * the explanation and never decides.
 */
export const functionCallValidator = builtinEntry(
  {
    kind: 'builtin',
    name: 'function_call_validator',
    description:
      'Did the agent call the right tools in the right sequence for the request? Decided by the judge from the dialog, the tools offered and the calls. A run with no tool call goes to the judge too when tools were offered (did the request need one?). Extra finding, in the explanation only: whether every call names a defined tool with arguments that validate against its JSON Schema (ajv); it does not decide.',
    outputType: 'pass_fail',
    implementationVersion: '3',
  },
  ['message_history', 'tools', 'tool_calls'],
  async (input, ctx) => {
    // Nothing offered, nothing called: there was no tool to choose, so there is nothing to judge.
    if (input.tool_calls.length === 0 && input.tools.length === 0) return passFail(true, 'deterministic', 'no tools offered and no tool calls');
    const problems = input.tools.length === 0 ? [] : input.tool_calls.flatMap((c, i) => callSchemaProblems(c, input.tools).map((p) => `${describeCall(c, i)}: ${p}`));
    const schema = input.tool_calls.length === 0
      ? 'no tool calls to validate'
      : input.tools.length === 0
      ? 'no tool definitions to validate arguments against'
      : problems.length === 0 ? `all ${input.tool_calls.length} calls match their JSON Schemas` : `${problems.length} schema problems: ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? '; …' : ''}`;
    const verdict = await askJudge(ctx, buildJudgePrompt(RUBRIC, input), 'pass_fail', [0, 1], 'model');
    if (!verdict.ok) return { ...verdict.outcome, explanation: `schema (not deciding): ${schema}` };
    const passed = verdict.value === 1;
    return { ...passFail(passed, 'model', `judge: ${verdict.explanation || (passed ? 'right tools in order' : 'wrong tools or order')}; schema (not deciding): ${schema}`), ...verdict.usage };
  },
  { method: 'model' },
);
