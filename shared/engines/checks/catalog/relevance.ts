import { judgeEntry } from '../model-entry.ts';

export const relevance = judgeEntry({
  name: 'relevance',
  description: 'How relevant the output is to the input: it addresses what was asked. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how relevant the AI output is to the input it responds to.',
  criteria: [
    'The output addresses the question or request in the input.',
    'Off-topic content and evasions lower the score.',
    'Correctness is not judged here, only relevance.',
  ],
  steps: [
    'Identify what the input asks for.',
    'Check how much of the output is about that.',
    'Rate from 1 (off topic) to 5 (fully on point).',
  ],
  inputs: ['Input: {scenario_input}', 'Output: {model_output}'],
  example: { data: 'Input: "How do I reset my password?" Output: "Our company was founded in 1998 and values customers."', answer: '[[1]] ((it does not address the question))' },
  requires: ['model_output', 'scenario_input'],
});
