import { judgeEntry } from '../model-entry.ts';

export const resultCompleted = judgeEntry({
  name: 'result_completed',
  description: 'Does the final output deliver the result the task required (the expected result when given, else everything the user asked for)?',
  outputType: 'pass_fail',
  task: 'Decide whether the agent\'s final output delivers the required result.',
  criteria: [
    'When an expected result is given, the output must contain it (same facts or values, wording may differ).',
    'Otherwise, the output must answer every question the user asked.',
    'A promise to follow up, or a partial answer, is not a completed result.',
  ],
  steps: [
    'Read the expected result (if provided) and the user\'s requests.',
    'Read the final output and the dialog\'s end.',
    'Answer True only if the required result is delivered in full.',
  ],
  inputs: ['Expected result: {scenario_result}', 'Dialog: {message_history}', 'Final output: {model_output}'],
  example: { data: 'Expected result: "The total is $1,286." Final output: "Your total comes to $1,286 including taxes."', answer: '[[True]] ((the required value is delivered))' },
});
