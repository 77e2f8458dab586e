import { builtinEntry } from '../builtin-check.ts';
import { actionCycles, loopOptions, repeatedCalls, repeatedTurns } from '../lib/loops.ts';
import { clip } from '../lib/tool-results.ts';
import { passFail } from '../outcome.ts';

/** Fails when the agent is stuck: the same call with the same result, a cycle of calls, or the same turn, with nothing new between. */
export const loopGuard = builtinEntry(
  {
    kind: 'builtin',
    name: 'loop_guard',
    description:
      'Fails when the agent loops with no new information: the same tool call with the same arguments and result 3+ times, a cycle of 2–4 calls repeated 3+ laps, or 3+ near-identical assistant turns in a row (normalized similarity ≥ 0.9) with nothing new between them. Params: minOccurrences, similarity.',
    outputType: 'pass_fail',
    implementationVersion: '1',
  },
  ['tool_calls', 'message_history'],
  (input, _ctx, def) => {
    const opts = loopOptions(def.params);
    const found: string[] = [];
    for (const r of repeatedCalls(input.tool_calls, opts)) found.push(`${r.label} returned the same result ${r.calls.length} times (calls #${r.calls.join(', #')})`);
    for (const c of actionCycles(input.tool_calls, opts)) found.push(`the cycle ${c.labels.join(' → ')} repeats ${c.laps} laps from call #${c.from} with the same results`);
    for (const t of repeatedTurns(input.message_history, opts)) found.push(`messages ${t.indexes.join(', ')} repeat the same assistant turn ("${clip(t.text, 50)}")`);
    if (found.length === 0) {
      return passFail(true, 'deterministic', `no loop in ${input.tool_calls.length} tool calls and ${input.message_history.length} messages`);
    }
    return passFail(false, 'deterministic', `loop: ${found.join('; ')}`);
  },
);
