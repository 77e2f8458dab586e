import { builtinEntry } from '../builtin-check.ts';
import { LOOP_GUARD_RUBRIC } from './judge-rubrics.ts';
import { actionCycles, assistantTurns, loopOptions, repeatedCalls, repeatedTurns } from '../lib/loops.ts';
import { agentCycles, repeatedOffers } from '../lib/paraphrase.ts';
import { clip } from '../lib/tool-results.ts';
import { settled } from '../lib/judge-mode.ts';
import { passFail } from '../outcome.ts';

/** Fails when the agent is stuck: the same call with the same result, a cycle of calls, or the same turn, with nothing new between. */
export const loopGuard = builtinEntry(
  {
    kind: 'builtin',
    name: 'loop_guard',
    description:
      'Fails when the agent loops with no new information: the same tool call with the same arguments and result 3+ times, a cycle of 2–4 calls repeated 3+ laps, 3+ near-identical assistant turns in a row (normalized similarity ≥ 0.9) with nothing new between them, two named agents handing the same request back and forth (each repeating itself, in any words, 3+ times in turn), or an offer repeated in other words after the user said yes. Params: minOccurrences, similarity, paraphrase (content-word similarity, default 0.5).',
    outputType: 'pass_fail',
    implementationVersion: '3',
  },
  ['tool_calls', 'message_history'],
  (input, _ctx, def) => {
    const opts = loopOptions(def.params);
    const found: string[] = [];
    for (const r of repeatedCalls(input.tool_calls, opts)) found.push(`${r.label} returned the same result ${r.calls.length} times (calls #${r.calls.join(', #')})`);
    for (const c of actionCycles(input.tool_calls, opts)) found.push(`the cycle ${c.labels.join(' → ')} repeats ${c.laps} laps from call #${c.from} with the same results`);
    const turns = repeatedTurns(input.message_history, opts);
    for (const t of turns) found.push(`messages ${t.indexes.join(', ')} repeat the same assistant turn ("${clip(t.text, 50)}")`);
    // The same call with the same result, a cycle of them, or the same turn: a loop for certain. Paraphrases are the judge's.
    const certain = found.length > 0;
    for (const c of agentCycles(input.message_history, opts.paraphrase, opts.minOccurrences - 1)) {
      found.push(`agents ${c.agents[0]} and ${c.agents[1]} hand the same request back and forth in messages ${c.indexes.join(', ')} without progress`);
    }
    const covered = new Set(turns.flatMap((t) => t.indexes));
    for (const o of repeatedOffers(input.message_history, opts.paraphrase).filter((x) => !covered.has(x.repeat))) {
      found.push(`message ${o.repeat} repeats the offer of message ${o.offer} in other words after the user agreed in message ${o.agreed} ("${clip(o.text, 50)}")`);
    }
    if (found.length === 0) {
      const out = passFail(true, 'deterministic', `no loop in ${input.tool_calls.length} tool calls and ${input.message_history.length} messages`);
      return input.tool_calls.length < 2 && assistantTurns(input.message_history) < 2 ? settled(out) : out;
    }
    const out = passFail(false, 'deterministic', `loop: ${found.join('; ')}`);
    return certain ? settled(out) : out;
  },
  { judge: LOOP_GUARD_RUBRIC },
);
