import { judgeEntry } from '../model-entry.ts';

export const behaviorAdherence = judgeEntry({
  name: 'behavior_adherence',
  description: 'Did the agent behave as expected? The expected behaviour is the scenario result (scenario_result); the instructions in the model input count too.',
  outputType: 'pass_fail',
  task: 'Decide whether the AI agent followed the behavioural instructions it was given.',
  criteria: [
    'The expected behaviour is given in the scenario result; further instructions come from the system prompt / model input.',
    'Any clear violation (forbidden action, skipped required step, wrong persona or tone) fails.',
    'Instructions the situation never triggered do not count.',
  ],
  steps: [
    'List the instructions that apply to this conversation.',
    'Check the agent\'s turns and tool calls against each.',
    'Answer True only if none is violated.',
  ],
  inputs: ['Expected behaviour (scenario result): {scenario_result}', 'Instructions and context: {model_input}', 'Final output: {model_output}'],
  example: { data: 'Expected behaviour: "Always confirm before cancelling." Dialog: the agent cancels without asking.', answer: '[[False]] ((it cancelled without the required confirmation))' },
  requires: ['scenario_result'],
});
