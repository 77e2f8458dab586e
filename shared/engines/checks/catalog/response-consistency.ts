import { judgeEntry } from '../model-entry.ts';

export const responseConsistency = judgeEntry({
  name: 'response_consistency',
  description: 'Are the agent\'s responses consistent across turns: no contradiction of what was said earlier, no drift in the information given? Statements beyond the tool results are our extension `tool_result_consistency`.',
  outputType: 'pass_fail',
  task: 'Decide whether the agent\'s responses stay consistent across the turns of the conversation.',
  criteria: [
    'A response that contradicts an earlier response, or something established earlier in the conversation, fails.',
    'Information drift fails: a fact (a price, an id, a date, a status) that changes from turn to turn without a reason in the conversation.',
    'New information is not a contradiction; rounding and paraphrase are fine.',
  ],
  steps: [
    'Collect the facts the agent states in each turn, and what the user and tools established.',
    'Compare each later statement with the earlier ones.',
    'Answer True only if there is no contradiction and no drift.',
  ],
  inputs: ['Dialog with tool calls and results: {message_history}'],
  example: { data: 'Dialog: the agent says "Your refund is $40." and two turns later "Your refund of $45 is on its way."', answer: '[[False]] ((the refund amount drifts from $40 to $45))' },
  requires: ['message_history'],
});
