import { judgeEntry } from '../model-entry.ts';

export const faithfulness = judgeEntry({
  name: 'faithfulness',
  description: 'How faithful the output is to its context (scenario_result, where the retrieved context lives) and its tool results: every claim supported, nothing hallucinated. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how faithful the AI output is to the context and tool results it had.',
  criteria: [
    'Each claim must be supported by the context or tool results.',
    'Unsupported specifics (numbers, names, policies) are hallucinations.',
    'Faithful paraphrase is fine.',
  ],
  steps: [
    'List the claims in the output.',
    'Find support for each in the context or tool results.',
    'Rate from 1 (mostly unsupported) to 5 (fully supported).',
  ],
  inputs: ['Context: {scenario_result}', 'Tool results: {tool_calls}', 'Output: {model_output}'],
  example: { data: 'Context: "Plan A costs $10/month." Output: "Plan A costs $10/month and includes free shipping."', answer: '[[3]] ((free shipping is not supported by the context))' },
  requires: ['model_output'],
});
