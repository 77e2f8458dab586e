import { judgeEntry } from '../model-entry.ts';

export const behaviorAdherence = judgeEntry({
  name: 'behavior_adherence',
  description: 'Did the agent follow the behaviour its instructions require (system prompt, policy, scenario directives)?',
  outputType: 'pass_fail',
  task: 'Decide whether the AI agent followed the behavioural instructions it was given.',
  criteria: [
    'Instructions come from the system prompt / model input and the scenario input.',
    'Any clear violation (forbidden action, skipped required step, wrong persona or tone) fails.',
    'Instructions the situation never triggered do not count.',
  ],
  steps: [
    'List the instructions that apply to this conversation.',
    'Check the agent\'s turns and tool calls against each.',
    'Answer True only if none is violated.',
  ],
  inputs: ['Instructions and context: {model_input}', 'Scenario: {scenario_input}', 'Final output: {model_output}'],
  example: { data: 'Instructions: "Always confirm before cancelling." Dialog: the agent cancels without asking.', answer: '[[False]] ((it cancelled without the required confirmation))' },
});
