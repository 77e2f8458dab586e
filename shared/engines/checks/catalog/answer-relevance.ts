import { judgeEntry } from '../model-entry.ts';

export const answerRelevance = judgeEntry({
  name: 'answer_relevance',
  description: 'Our extension: does the output address what the input asks (off-topic content and evasions score low; correctness is not judged)? Score 1–5; passes at 3. The documented `relevance` rates summary relevance.',
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
