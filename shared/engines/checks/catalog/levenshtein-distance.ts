import type { CatalogEntry } from '../builtin-check.ts';
import { builtinEntry } from '../builtin-check.ts';
import { codePointDistance, codePointLength } from '../lib/code-point-distance.ts';
import { notRun, valueOutcome } from '../outcome.ts';

function levenshteinEntry(name: string, field: 'scenario_result' | 'scenario_input', what: string): CatalogEntry {
  return builtinEntry(
    {
      kind: 'builtin',
      name,
      description: `Edit distance (Levenshtein, in characters as Python's len counts them: code points) between the output and the ${what} (${field}); 0 = identical. Needs ${field} and model_output.`,
      outputType: 'score',
      range: [0, Number.MAX_SAFE_INTEGER],
      implementationVersion: '2',
    },
    ['model_output', field],
    (input, _ctx, def) => {
      const reference = input[field];
      if (reference === null) return notRun('deterministic', `needs ${field}, which this unit does not carry`);
      if (input.model_output === null) return notRun('deterministic', 'the unit has no final output (model_output)');
      const d = codePointDistance(input.model_output, reference);
      return valueOutcome(def, d, 'deterministic', `${d} edits between ${codePointLength(input.model_output)} output and ${codePointLength(reference)} ${field} characters`);
    },
  );
}

export const levenshteinDistance = levenshteinEntry('levenshtein_distance', 'scenario_result', 'expected result');
export const levenshteinDistanceInput = levenshteinEntry('levenshtein_distance_input', 'scenario_input', 'scenario input');
