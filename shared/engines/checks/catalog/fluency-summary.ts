import { judgeEntry } from '../model-entry.ts';

export const fluencySummary = judgeEntry({
  name: 'fluency_summary',
  description: 'Fluency of a summary: grammatical, natural sentences that read as a text of their own. An integer score from 1 to 5, as defined; passes at 3. `scoring: "g_eval"` (our extension) weights the scores the judge could write by their probabilities instead (a float).',
  integer: true,
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the fluency of a summary written from a source text.',
  criteria: [
    'The summary\'s sentences are grammatical and natural.',
    'It reads as prose of its own, not as stitched fragments copied from the source.',
    'Judge the language, not the coverage of the source.',
  ],
  steps: [
    'Skim the source to know what the summary is about.',
    'Read the summary and note grammar problems, fragments and awkward joins.',
    'Rate from 1 (broken) to 5 (fluent).',
  ],
  inputs: ['Source: {scenario_input}', 'Summary: {model_output}'],
  example: { data: 'Summary: "Company profits up. Because new product. CEO said happy, more next year."', answer: '[[2]] ((fragments instead of sentences))' },
  requires: ['model_output'],
});
