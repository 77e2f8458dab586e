import { judgeEntry } from '../model-entry.ts';

export const fluency = judgeEntry({
  name: 'fluency',
  description: 'How fluent the output is: grammatical, natural, easy to read. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the fluency of the AI output as written language.',
  criteria: [
    'Grammar, spelling and word choice are correct.',
    'Sentences read naturally and flow into each other.',
    'Judge the language only, not whether the content is right.',
  ],
  steps: [
    'Read the output once for overall readability.',
    'Note grammatical errors, awkward phrasing and broken sentences.',
    'Rate from 1 (hard to read) to 5 (fluent, natural prose).',
  ],
  inputs: ['Output: {model_output}'],
  example: { data: 'Output: "The order have been ship yesterday and it arrive tomorrow maybe."', answer: '[[2]] ((several grammatical errors make it awkward))' },
  requires: ['model_output'],
});
