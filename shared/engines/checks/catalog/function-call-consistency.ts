import type { CatalogEntry } from '../builtin-check.ts';
import { judgeEntry } from '../model-entry.ts';
import { passFail } from '../outcome.ts';

const judged = judgeEntry({
  name: 'function_call_consistency',
  description: 'Are the agent\'s tool calls consistent with the user\'s request and the dialog (right tool, right target, sensible order)?',
  outputType: 'pass_fail',
  task: 'Decide whether the agent\'s tool calls are the ones the conversation called for.',
  criteria: [
    'Each call serves what the user asked at that point.',
    'Calls act on the items, people and values the dialog established.',
    'Calls the user did not want (or before a required confirmation) fail.',
  ],
  steps: [
    'Follow the dialog and note what the user wanted at each point.',
    'Check every tool call and its arguments against that.',
    'Answer True only if all calls are consistent.',
  ],
  inputs: ['Dialog: {message_history}', 'Tool calls: {tool_calls}', 'Tool definitions: {tools}'],
  example: { data: 'Dialog: the user asks to cancel order #W1; the agent calls cancel_order(order_id="#W2").', answer: '[[False]] ((it cancelled a different order))' },
});

/** As documented, a run without a function call scores 0 (fails): there is no call consistent with the request. */
export const functionCallConsistency: CatalogEntry = {
  ...judged,
  build(def) {
    const check = judged.build(def);
    return {
      ...check,
      run: async (input, ctx) => (input.tool_calls.length === 0 ? passFail(false, 'deterministic', 'no function call was made (documented: 0)') : check.run(input, ctx)),
    };
  },
};
