import { judgeEntry } from '../model-entry.ts';

export const coherenceSummary = judgeEntry({
  name: 'coherence_summary',
  description: 'Coherence of a summary: a well-structured whole built from the source, not a heap of facts. An integer score from 1 to 5, as defined; passes at 3. `scoring: "g_eval"` (our extension) weights the scores the judge could write by their probabilities instead (a float).',
  integer: true,
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the coherence of a summary written from a source text.',
  criteria: [
    'The summary is organized and its sentences connect.',
    'It presents the source\'s points in a sensible order.',
    'It does not jump between unrelated details.',
  ],
  steps: [
    'Read the source and note its main points.',
    'Read the summary and check that it builds a connected account of them.',
    'Rate from 1 (incoherent) to 5 (well structured).',
  ],
  inputs: ['Source: {scenario_input}', 'Summary: {model_output}'],
  example: { data: 'Source: an article about a merger. Summary: "The merger closed. Shares rose 4%. The deal was first proposed in May."', answer: '[[4]] ((connected, though the order is slightly reversed))' },
  requires: ['model_output', 'scenario_input'],
});
