import { judgeEntry } from '../model-entry.ts';

export const referenceSimilarity = judgeEntry({
  name: 'reference_similarity',
  description: 'How close the output is in meaning to the reference (expected) result. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how similar in meaning the AI output is to the reference answer.',
  criteria: [
    'Same facts and conclusions as the reference score high, whatever the wording.',
    'Missing or different key facts lower the score.',
    'Extra correct detail is not penalized much.',
  ],
  steps: [
    'List the key facts of the reference.',
    'Check which the output states the same way.',
    'Rate from 1 (different meaning) to 5 (same meaning).',
  ],
  inputs: ['Reference: {scenario_result}', 'Output: {model_output}'],
  example: { data: 'Reference: "The flight departs at 9:40 from gate B12." Output: "Departure is 9:40am, gate B12."', answer: '[[5]] ((same facts))' },
  requires: ['model_output', 'scenario_result'],
});
