import { judgeEntry } from '../model-entry.ts';

export const relevanceSummary = judgeEntry({
  name: 'relevance_summary',
  description: 'Relevance of a summary: it keeps the source\'s important content and leaves out the trivial. An integer score from 1 to 5, as defined; passes at 3. `scoring: "g_eval"` (our extension) weights the scores the judge could write by their probabilities instead (a float).',
  integer: true,
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how well a summary selects the important content of its source.',
  criteria: [
    'The summary includes the source\'s main points.',
    'It leaves out minor details and redundancy.',
    'Content not in the source counts against relevance.',
  ],
  steps: [
    'Read the source and list its most important points.',
    'Check which of them the summary covers and what else it spends words on.',
    'Rate from 1 (misses the point) to 5 (captures the essentials only).',
  ],
  inputs: ['Source: {scenario_input}', 'Summary: {model_output}'],
  example: { data: 'Source: a report on a product recall and its cause. Summary: "The report was 12 pages long and written in May."', answer: '[[1]] ((misses the recall and its cause))' },
  requires: ['model_output', 'scenario_input'],
});
