import { distance } from 'fastest-levenshtein';
import type { CatalogEntry } from '../builtin-check.ts';
import { builtinEntry } from '../builtin-check.ts';
import { notRun, valueOutcome } from '../outcome.ts';

function levenshteinEntry(name: string, field: 'scenario_result' | 'scenario_input', what: string): CatalogEntry {
  return builtinEntry(
    {
      kind: 'builtin',
      name,
      description: `Edit distance (Levenshtein, characters) between the output and the ${what} (${field}); 0 = identical. Needs ${field} and model_output.`,
      outputType: 'score',
      range: [0, Number.MAX_SAFE_INTEGER],
      implementationVersion: '1',
    },
    ['model_output', field],
    (input, _ctx, def) => {
      const reference = input[field];
      if (reference === null) return notRun('deterministic', `needs ${field}, which this unit does not carry`);
      if (input.model_output === null) return notRun('deterministic', 'the unit has no final output (model_output)');
      const d = distance(input.model_output, reference);
      return valueOutcome(def, d, 'deterministic', `${d} edits between ${input.model_output.length} output and ${reference.length} ${field} characters`);
    },
  );
}

export const levenshteinDistance = levenshteinEntry('levenshtein_distance', 'scenario_result', 'expected result');
export const levenshteinDistanceInput = levenshteinEntry('levenshtein_distance_input', 'scenario_input', 'scenario input');
