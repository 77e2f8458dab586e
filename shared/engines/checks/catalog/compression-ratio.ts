import { builtinEntry } from '../builtin-check.ts';
import { notRun, valueOutcome } from '../outcome.ts';

/** Python's len(): code points, not UTF-16 units, so an emoji counts once as the definition does. */
const pyLen = (s: string): number => [...s].length;

/** len(model_output) / len(scenario_input), as defined: below 1 the output is shorter than its input. */
export const compressionRatio = builtinEntry(
  {
    kind: 'builtin',
    name: 'compression_ratio',
    description: 'len(model_output) / len(scenario_input), in characters (Python len: code points), unrounded: a 250-character summary of a 1,000-character text scores 0.25. Needs scenario_input (non-empty) and model_output.',
    outputType: 'score',
    range: [0, Number.MAX_SAFE_INTEGER],
    implementationVersion: '2',
  },
  ['model_output', 'scenario_input'],
  (input, _ctx, def) => {
    if (input.model_output === null) return notRun('deterministic', 'the unit has no final output (model_output)');
    if (!input.scenario_input) return notRun('deterministic', 'needs a non-empty scenario_input, which this unit does not carry');
    const outLen = pyLen(input.model_output);
    const inLen = pyLen(input.scenario_input);
    return valueOutcome(def, outLen / inLen, 'deterministic', `${outLen} output characters / ${inLen} input characters`);
  },
);
