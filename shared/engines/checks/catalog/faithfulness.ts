import { judgeEntry } from '../model-entry.ts';

export const faithfulness = judgeEntry({
  name: 'faithfulness',
  description: 'Is the output factually consistent with the provided context (the scenario result)? Score 1–5; passes at 3. Without a scenario result it is not run; consistency with tool results is our extension `tool_result_consistency`.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how factually consistent the AI output is with the provided context.',
  criteria: [
    'Each claim must be consistent with the provided context.',
    'Claims the context contradicts, and unsupported specifics (numbers, names, policies), are unfaithful.',
    'Faithful paraphrase is fine.',
  ],
  steps: [
    'List the claims in the output.',
    'Check each against the context.',
    'Rate from 1 (mostly inconsistent) to 5 (fully consistent).',
  ],
  inputs: ['Context: {scenario_result}', 'Output: {model_output}'],
  example: { data: 'Context: "Plan A costs $10/month." Output: "Plan A costs $10/month and includes free shipping."', answer: '[[3]] ((free shipping is not supported by the context))' },
  requires: ['scenario_result', 'model_output'],
});
