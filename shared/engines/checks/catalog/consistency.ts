import { judgeEntry } from '../model-entry.ts';

export const consistency = judgeEntry({
  name: 'consistency',
  description: 'Factual consistency of the output with its input: nothing contradicts or goes beyond what the input supports. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how factually consistent the AI output is with the input it was given.',
  criteria: [
    'Every claim in the output is supported by the input.',
    'Contradictions and invented facts lower the score sharply.',
    'Omissions alone do not lower this score.',
  ],
  steps: [
    'List the factual claims in the output.',
    'Check each claim against the input.',
    'Rate from 1 (contradicts or invents) to 5 (fully consistent).',
  ],
  inputs: ['Input: {scenario_input}', 'Output: {model_output}'],
  example: { data: 'Input: "The meeting moved to Tuesday at 3pm." Output: "The meeting is on Wednesday at 3pm."', answer: '[[1]] ((the day contradicts the input))' },
  requires: ['model_output', 'scenario_input'],
});
