import { builtinEntry } from '../builtin-check.ts';
import { notRun, valueOutcome } from '../outcome.ts';

/** Input length ÷ output length (characters): how much the output condensed its input. */
export const compressionRatio = builtinEntry(
  {
    kind: 'builtin',
    name: 'compression_ratio',
    description: 'Characters of the scenario input divided by characters of the output: above 1 the output is shorter than its input (a summary of a 1,000-character text in 250 characters scores 4). Needs scenario_input and model_output.',
    outputType: 'score',
    range: [0, Number.MAX_SAFE_INTEGER],
    implementationVersion: '1',
  },
  ['scenario_input', 'model_output'],
  (input, _ctx, def) => {
    if (!input.scenario_input) return notRun('deterministic', 'needs scenario_input, which this unit does not carry');
    if (!input.model_output) return notRun('deterministic', 'the unit has no final output (model_output)');
    const inLen = input.scenario_input.trim().length;
    const outLen = input.model_output.trim().length;
    if (outLen === 0) return notRun('deterministic', 'the output is empty');
    const value = Math.round((inLen / outLen) * 1000) / 1000;
    return valueOutcome(def, value, 'deterministic', `${inLen} input characters / ${outLen} output characters`);
  },
);
