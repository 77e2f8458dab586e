import { judgeEntry } from '../model-entry.ts';

export const concisenessForRequest = judgeEntry({
  name: 'conciseness_for_request',
  description: 'Our extension: how concise the output is for the request it answers (scenario_input) — what the request needs and nothing more. Score 1–5; passes at 3. The documented `conciseness` judges the output alone.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how concise the AI output is for the request it answers.',
  criteria: [
    'A concise output gives everything the request needs and nothing more.',
    'Repetition, filler, needless hedging and restating the question lower the score.',
    'Do not reward shortness that drops needed content.',
  ],
  steps: [
    'Read the request (scenario input or dialog) to see what was needed.',
    'Read the output and mark sentences that add nothing.',
    'Rate from 1 (mostly padding) to 5 (every sentence needed).',
  ],
  inputs: ['Request: {scenario_input}', 'Output: {model_output}'],
  example: { data: 'Request: "What is the capital of France?" Output: "Great question! The capital of France, a country in Europe, is Paris. Paris is the capital."', answer: '[[2]] ((the answer is padded and repeats itself))' },
  requires: ['model_output'],
});
