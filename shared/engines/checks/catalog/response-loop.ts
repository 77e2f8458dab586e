import { builtinEntry } from '../builtin-check.ts';
import { RESPONSE_LOOP_RUBRIC } from './judge-rubrics.ts';
import { assistantTurns, loopOptions, repeatedTurns } from '../lib/loops.ts';
import { agentCycles, repeatedOffers } from '../lib/paraphrase.ts';
import { clip } from '../lib/tool-results.ts';
import { settled } from '../lib/judge-mode.ts';
import { passFail } from '../outcome.ts';

/** Fails when the assistant keeps giving the same response with nothing new said between. */
export const responseLoop = builtinEntry(
  {
    kind: 'builtin',
    name: 'response_loop',
    description:
      'Fails when the assistant repeats the same response 3+ times in a row (normalized similarity ≥ 0.9) while nothing new came from the user or the tools in between. Also fails when two named agents hand the same content back and forth (each repeating itself, in any words, 3+ times in turn: repeated content with no new information or action), and when the assistant repeats an offer in other words (content-word similarity ≥ 0.5) after the user already said yes. The same sentence after new information is not a loop. Params: minOccurrences, similarity, paraphrase.',
    outputType: 'pass_fail',
    implementationVersion: '4',
  },
  ['message_history'],
  (input, _ctx, def) => {
    const opts = loopOptions(def.params);
    const runs = repeatedTurns(input.message_history, opts);
    const found = runs.map((r) => `messages ${r.indexes.join(', ')} repeat "${clip(r.text, 50)}"`);
    // An offer repeated word for word is already reported with its run.
    const covered = new Set(runs.flatMap((r) => r.indexes));
    for (const o of repeatedOffers(input.message_history, opts.paraphrase).filter((x) => !covered.has(x.repeat))) {
      found.push(`message ${o.repeat} repeats the offer of message ${o.offer} in other words after the user agreed in message ${o.agreed} ("${clip(o.text, 50)}")`);
    }
    for (const c of agentCycles(input.message_history, opts.paraphrase, opts.minOccurrences - 1)) {
      found.push(`agents ${c.agents[0]} and ${c.agents[1]} hand the same content back and forth in messages ${c.indexes.join(', ')} with no new information or action`);
    }
    if (found.length === 0) {
      const out = passFail(true, 'deterministic', 'no repeated assistant responses without new information');
      return assistantTurns(input.message_history) < 2 ? settled(out) : out;
    }
    // Near-identical turns are a loop for certain; content repeated in other words is the judge's to weigh.
    const out = passFail(false, 'deterministic', `response loop: ${found.join('; ')}`);
    return runs.length > 0 ? settled(out) : out;
  },
  { judge: RESPONSE_LOOP_RUBRIC },
);
