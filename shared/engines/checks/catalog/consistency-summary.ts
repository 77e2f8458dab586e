import { judgeEntry } from '../model-entry.ts';

export const consistencySummary = judgeEntry({
  name: 'consistency_summary',
  description: 'Factual consistency of a summary with its source: no contradiction and no fact the source lacks. An integer score from 1 to 5, as defined; passes at 3. `scoring: "g_eval"` (our extension) weights the scores the judge could write by their probabilities instead (a float).',
  integer: true,
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how factually consistent a summary is with its source text.',
  criteria: [
    'Every statement in the summary is supported by the source.',
    'Contradictions and hallucinated details lower the score sharply.',
    'Leaving things out is not an inconsistency.',
  ],
  steps: [
    'List the facts the summary states.',
    'Find each in the source.',
    'Rate from 1 (contradicts or invents) to 5 (fully supported).',
  ],
  inputs: ['Source: {scenario_input}', 'Summary: {model_output}'],
  example: { data: 'Source: "Revenue rose 5% to $2M." Summary: "Revenue rose 15%."', answer: '[[1]] ((the percentage contradicts the source))' },
  requires: ['model_output', 'scenario_input'],
});
