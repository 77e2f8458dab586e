import { judgeEntry } from '../model-entry.ts';

export const toolResultConsistency = judgeEntry({
  name: 'tool_result_consistency',
  description: 'Our extension: are the agent\'s responses consistent with the tool results and the earlier dialog (no misread tool output, no information beyond them)? The documented `response_consistency` judges contradictions and drift across turns.',
  outputType: 'pass_fail',
  task: 'Decide whether the agent\'s responses stay consistent with what the tools returned and what was said before.',
  criteria: [
    'Facts the agent states must match the tool results and the earlier turns.',
    'Misreading a tool result or inventing information (prices, ids, policies, statuses) fails.',
    'Rounding and paraphrase are fine.',
  ],
  steps: [
    'Collect the facts returned by tools and stated by the user.',
    'Check each factual statement in the assistant turns against them.',
    'Answer True only if no statement contradicts or goes beyond them.',
  ],
  inputs: ['Dialog with tool calls and results: {message_history}'],
  example: { data: 'Dialog: get_order returns {{"status": "pending"}}; the agent says "Your order has shipped."', answer: '[[False]] ((the agent contradicts the tool result))' },
  requires: ['message_history'],
});
