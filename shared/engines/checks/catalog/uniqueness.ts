import { builtinEntry } from '../builtin-check.ts';
import { askJudge } from '../lib/ask-judge.ts';
import { buildJudgePrompt } from '../judge-prompt.ts';
import { notRun, valueOutcome } from '../outcome.ts';

// Other outputs sent to the judge at most; beyond this the rubric says how many were left out.
const MAX_OTHERS = 50;
const MAX_CHARS_EACH = 2_000;

const RUBRIC = `# Task
Rate how unique the AI output is compared with the other outputs of the same evaluation.

# Criteria
- Unique: it says something in its own way: its content, structure and wording differ from every other output.
- Repeating another output, or a near copy with a few words changed, is not unique.
- Outputs that answer the same question alike because the facts are the same are judged on wording and structure.

# Steps
1. Read the output.
2. Compare it with each of the other outputs (the data block "other_outputs", a JSON list with one output per line).
3. Rate from 1 (a duplicate of another output) to 5 (unlike every other output).

# Example
Output: "Paris is the capital of France." Other outputs: "Paris is the capital of France.", "Berlin is Germany's capital."
Answer: [[1]] ((it repeats the first other output word for word))

# Inputs
- Output: {model_output}

# Output format
Reply with a number from 1 to 5 in double square brackets, then a one-sentence explanation in double parentheses, e.g. [[5]] ((why)).`;

/** A judge rating (1–5) of this output against the other outputs of the evaluation (ctx.batch). */
export const uniqueness = builtinEntry(
  {
    kind: 'builtin',
    name: 'uniqueness',
    description: 'How unique the output is compared with the other outputs of the same evaluation (the batch or window scored together): a judge rating from 1 (a duplicate) to 5 (unlike every other output); passes at 3. Without other outputs to compare with it does not run.',
    outputType: 'score',
    range: [1, 5],
    threshold: 3,
    implementationVersion: '3',
  },
  ['model_output', 'other outputs of the evaluation'],
  async (input, ctx, def) => {
    if (!input.model_output) return notRun('model', 'the unit has no final output (model_output)');
    const others = (ctx.batch ?? []).filter((row) => row.id !== input.id && row.model_output).map((row) => row.model_output!.slice(0, MAX_CHARS_EACH));
    if (others.length === 0) return notRun('model', 'no other outputs in this evaluation to compare with');
    const shown = others.slice(0, MAX_OTHERS);
    const note = others.length > shown.length ? `(${others.length - shown.length} more not shown)` : undefined;
    const prompt = buildJudgePrompt(RUBRIC, input, { extraBlocks: [{ name: 'other_outputs', value: shown, ...(note ? { note } : {}) }] });
    const verdict = await askJudge(ctx, prompt, 'score', [1, 5], 'model');
    if (!verdict.ok) return verdict.outcome;
    return { ...valueOutcome(def, verdict.value, 'model', `${verdict.explanation} (compared with ${others.length} other outputs)`), ...verdict.usage };
  },
  { method: 'model', comparesRows: true },
);
