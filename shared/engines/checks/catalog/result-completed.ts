import { judgeEntry } from '../model-entry.ts';

export const resultCompleted = judgeEntry({
  name: 'result_completed',
  description: 'Does the message history reach the expected outcome described in the scenario result? Without a scenario result it is not run.',
  outputType: 'pass_fail',
  task: 'Decide whether the conversation reached the expected outcome described in the scenario result.',
  criteria: [
    'The expected outcome is the one the scenario result describes (same facts, values or state; wording may differ).',
    'A promise to follow up, or a partial outcome, is not a completed result.',
    'Anything the scenario result does not ask for neither passes nor fails it.',
  ],
  steps: [
    'Read the expected outcome in the scenario result.',
    'Read the message history to its end.',
    'Answer True only if the expected outcome is reached in full.',
  ],
  inputs: ['Expected outcome (scenario result): {scenario_result}', 'Message history: {message_history}'],
  example: { data: 'Expected outcome: "The total is $1,286." Message history ends: assistant: "Your total comes to $1,286 including taxes."', answer: '[[True]] ((the expected value is delivered))' },
  requires: ['scenario_result', 'message_history'],
});
