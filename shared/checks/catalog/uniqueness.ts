import { builtinEntry } from '../builtin-check.ts';
import { lengthBound, normalizeText, textSimilarity } from '../lib/text.ts';
import { notRun, valueOutcome } from '../outcome.ts';

/** 1 − the highest similarity of this row's output to any other row's output in the same batch or window. */
export const uniqueness = builtinEntry(
  {
    kind: 'builtin',
    name: 'uniqueness',
    description: 'How different this output is from the other outputs of the same batch or window (ctx.batch): 1 − the highest normalized edit similarity to another row. 1 = unlike every other row, 0 = a duplicate. Score 0–1.',
    outputType: 'score',
    range: [0, 1],
    implementationVersion: '1',
  },
  ['model_output'],
  (input, ctx, def) => {
    if (!input.model_output) return notRun('deterministic', 'the unit has no final output (model_output)');
    const own = normalizeText(input.model_output);
    let best = 0;
    let bestId: string | null = null;
    let others = 0;
    for (const row of ctx.batch ?? []) {
      if (row.id === input.id || !row.model_output) continue;
      others++;
      const other = normalizeText(row.model_output);
      if (lengthBound(own, other) <= best) continue;
      const s = textSimilarity(own, other);
      if (s > best) {
        best = s;
        bestId = row.id;
      }
    }
    if (others === 0) return valueOutcome(def, 1, 'deterministic', 'no other rows in the batch to compare with');
    const value = Math.round((1 - best) * 1000) / 1000;
    return valueOutcome(def, value, 'deterministic', `compared with ${others} other rows; most similar: ${bestId ?? 'none'} (similarity ${best.toFixed(3)})`);
  },
);
