import { judgeEntry } from '../model-entry.ts';

export const isBestOption = judgeEntry({
  name: 'is_best_option',
  description: 'Did the agent choose the best option available for the user (among the options the dialog and tools showed)?',
  outputType: 'pass_fail',
  task: 'Decide whether the option the agent chose or recommended was the best one available for the user.',
  criteria: [
    'Best means it meets the user\'s stated constraints and preferences better than the alternatives shown.',
    'Options the agent never saw do not count against it.',
    'Choosing a worse option without reason fails.',
  ],
  steps: [
    'List the options visible in the dialog and tool results.',
    'Note the user\'s constraints (price, time, preferences).',
    'Answer True if the chosen option is the best fit.',
  ],
  inputs: ['Request: {scenario_input}', 'Dialog: {message_history}', 'Final output: {model_output}'],
  example: { data: 'User wants the cheapest direct flight; tools show $200 direct and $150 direct; the agent books the $200 one.', answer: '[[False]] ((a cheaper direct flight was available))' },
});
