import { judgeEntry } from '../model-entry.ts';

export const coherence = judgeEntry({
  name: 'coherence',
  description: 'How coherent the output is: well organized, each part following from the last. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the coherence of the AI output.',
  criteria: [
    'Ideas are in a sensible order and connected.',
    'There are no contradictions or abrupt jumps between topics.',
    'The output forms one whole answer rather than a list of unrelated statements.',
  ],
  steps: [
    'Read the output and outline its main points.',
    'Check that each point follows from or builds on the previous one.',
    'Rate from 1 (disjointed) to 5 (well structured and connected).',
  ],
  inputs: ['Output: {model_output}'],
  example: { data: 'Output: "Your refund was issued. Paris has many museums. Please restart your router."', answer: '[[1]] ((unrelated statements with no connection))' },
  requires: ['model_output'],
});
