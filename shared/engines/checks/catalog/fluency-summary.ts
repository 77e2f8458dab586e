import { judgeEntry } from '../model-entry.ts';

export const fluencySummary = judgeEntry({
  name: 'fluency_summary',
  description: 'Fluency of a summary: grammatical, natural sentences that read as a text of their own. Score 1–5 as G-Eval reads it: the scores the judge could write, weighted by their probabilities (a float, e.g. 4.3; the written number when the judge gives no token probabilities); passes at 3.',
  scoring: 'g_eval',
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
