import { judgeEntry } from '../model-entry.ts';

export const behaviorAdherence = judgeEntry({
  name: 'behavior_adherence',
  description: 'Does the output follow the instructions outlined in the scenario result? Adherence only, not factual accuracy. Instructions from the system prompt or model input are our extension `instruction_adherence`.',
  outputType: 'pass_fail',
  task: 'Decide whether the AI output follows the instructions outlined in the scenario result.',
  criteria: [
    'The instructions are the ones in the scenario result, and only those.',
    'Any clear violation of them (a forbidden action, a skipped required step, the wrong persona or tone) fails.',
    'Judge adherence, not factual accuracy: a wrong fact delivered as instructed still adheres.',
  ],
  steps: [
    'List the instructions in the scenario result.',
    'Check the output against each.',
    'Answer True only if none is violated.',
  ],
  inputs: ['Instructions (scenario result): {scenario_result}', 'Output: {model_output}'],
  example: { data: 'Instructions: "Always confirm before cancelling." Output: "Done, I have cancelled your booking."', answer: '[[False]] ((it cancelled without the required confirmation))' },
  requires: ['scenario_result', 'model_output'],
});
