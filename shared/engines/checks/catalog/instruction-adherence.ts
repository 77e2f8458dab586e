import { judgeEntry } from '../model-entry.ts';

export const instructionAdherence = judgeEntry({
  name: 'instruction_adherence',
  description: 'Our extension: did the agent follow its instructions, from the system prompt and model input as well as the scenario result when given? The documented `behavior_adherence` reads the scenario result only.',
  outputType: 'pass_fail',
  task: 'Decide whether the AI agent followed the behavioural instructions it was given.',
  criteria: [
    'Instructions come from the system prompt / model input, and from the expected behaviour when it is given.',
    'Any clear violation (forbidden action, skipped required step, wrong persona or tone) fails.',
    'Instructions the situation never triggered do not count.',
  ],
  steps: [
    'List the instructions that apply to this conversation.',
    'Check the agent\'s turns and tool calls against each.',
    'Answer True only if none is violated.',
  ],
  inputs: ['Expected behaviour (scenario result): {scenario_result}', 'Instructions and context: {model_input}', 'Final output: {model_output}'],
  example: { data: 'System prompt: "Always confirm before cancelling." Dialog: the agent cancels without asking.', answer: '[[False]] ((it cancelled without the required confirmation))' },
  requires: ['model_output'],
});
