import { judgeEntry } from '../model-entry.ts';

export const relevance = judgeEntry({
  name: 'relevance',
  description: 'Relevance of the output as a summary of its input: highly relevant information rewarded, redundancies and irrelevant information penalised. Score 1–5; passes at 3. Whether an output addresses a question is our extension `answer_relevance`.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the relevance of the AI output as a summary of the source it was given: how well it selects the important content of the source.',
  criteria: [
    'Highly relevant information from the source raises the score.',
    'Redundancies (the same point made more than once) lower the score.',
    'Information that is irrelevant to the source, or trivial in it, lowers the score.',
  ],
  steps: [
    'Read the source and note its important points.',
    'Read the output and mark what is important, what repeats and what is irrelevant.',
    'Rate from 1 (mostly irrelevant or redundant) to 5 (the important points, once each, nothing else).',
  ],
  inputs: ['Source: {scenario_input}', 'Output: {model_output}'],
  example: { data: 'Source: "The council approved the new park; building starts in May." Output: "The council approved a park. The park was approved by the council. The mayor likes jazz."', answer: '[[2]] ((the approval is repeated and the mayor\'s taste in music is irrelevant))' },
  requires: ['model_output', 'scenario_input'],
});
