import { builtinEntry } from '../builtin-check.ts';
import { loopOptions, repeatedTurns } from '../lib/loops.ts';
import { clip } from '../lib/tool-results.ts';
import { passFail } from '../outcome.ts';

/** Fails when the assistant keeps giving the same response with nothing new said between. */
export const responseLoop = builtinEntry(
  {
    kind: 'builtin',
    name: 'response_loop',
    description:
      'Fails when the assistant repeats the same response 3+ times in a row (normalized similarity ≥ 0.9) while nothing new came from the user or the tools in between. The same sentence after new information is not a loop. Params: minOccurrences, similarity.',
    outputType: 'pass_fail',
    implementationVersion: '1',
  },
  ['message_history'],
  (input, _ctx, def) => {
    const runs = repeatedTurns(input.message_history, loopOptions(def.params));
    if (runs.length === 0) return passFail(true, 'deterministic', 'no repeated assistant responses without new information');
    return passFail(false, 'deterministic', `response loop: ${runs.map((r) => `messages ${r.indexes.join(', ')} repeat "${clip(r.text, 50)}"`).join('; ')}`);
  },
);
