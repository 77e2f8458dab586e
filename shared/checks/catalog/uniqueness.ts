import { builtinEntry } from '../builtin-check.ts';
import type { CheckInput } from '../contract.ts';
import { normalizeText } from '../lib/text.ts';
import { notRun, valueOutcome } from '../outcome.ts';

// Word sets per row, computed once per row object: every row of a batch is compared with every other.
const wordSets = new WeakMap<CheckInput, Set<string>>();
function wordsOf(row: CheckInput): Set<string> {
  let set = wordSets.get(row);
  if (!set) {
    set = new Set(normalizeText(row.model_output).split(' ').filter(Boolean));
    wordSets.set(row, set);
  }
  return set;
}

/** Jaccard similarity of two word sets; the size ratio bounds it, so most pairs are skipped. */
function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/** 1 − the highest similarity of this row's output to any other row's output in the same batch or window. */
export const uniqueness = builtinEntry(
  {
    kind: 'builtin',
    name: 'uniqueness',
    description: 'How different this output is from the other outputs of the same batch or window (ctx.batch): 1 − the highest word-set (Jaccard) similarity to another output in the batch. 1 = unlike every other row, 0 = a duplicate. Score 0–1.',
    outputType: 'score',
    range: [0, 1],
    implementationVersion: '2',
  },
  ['model_output'],
  (input, ctx, def) => {
    if (!input.model_output) return notRun('deterministic', 'the unit has no final output (model_output)');
    const own = wordsOf(input);
    let best = 0;
    let bestId: string | null = null;
    let others = 0;
    for (const row of ctx.batch ?? []) {
      if (row.id === input.id || !row.model_output) continue;
      others++;
      const other = wordsOf(row);
      if (Math.min(own.size, other.size) / Math.max(own.size, other.size, 1) <= best) continue;
      const s = jaccard(own, other);
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
