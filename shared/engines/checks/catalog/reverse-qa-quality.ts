import { judgeEntry } from '../model-entry.ts';

export const reverseQaQuality = judgeEntry({
  name: 'reverse_qa_quality',
  description: 'Quality of a question generated from a source (reverse QA): answerable from the source, specific, and well formed. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the quality of a question that was generated from a source text.',
  criteria: [
    'The question can be answered from the source alone.',
    'It is specific and unambiguous, not trivially copied from one sentence.',
    'It is grammatical and reads as a natural question.',
  ],
  steps: [
    'Read the source.',
    'Read the generated question and find its answer in the source.',
    'Rate from 1 (unanswerable or malformed) to 5 (clear, specific and answerable).',
  ],
  inputs: ['Source: {scenario_input}', 'Generated question: {model_output}'],
  example: { data: 'Source: "The bridge opened in 1932 and spans 503 m." Question: "How long is the bridge, and when did it open?"', answer: '[[5]] ((answerable, specific, well formed))' },
  requires: ['model_output', 'scenario_input'],
});
