import { judgeEntry } from '../model-entry.ts';

export const rephraseQuality = judgeEntry({
  name: 'rephrase_quality',
  description: 'Quality of a rephrasing: the same meaning as the original in different, fluent words. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how well the output rephrases the original text.',
  criteria: [
    'The meaning is preserved: no facts added, dropped or changed.',
    'The wording is actually different, not a copy.',
    'The result is fluent.',
  ],
  steps: [
    'Compare the meaning of the original and the rephrasing.',
    'Check how much of the wording changed and how natural it reads.',
    'Rate from 1 (meaning lost or a copy) to 5 (same meaning, fresh fluent wording).',
  ],
  inputs: ['Original: {scenario_input}', 'Rephrased: {model_output}'],
  example: { data: 'Original: "Please submit the form by Friday." Rephrased: "The form is due by the end of Friday."', answer: '[[5]] ((same meaning, new wording))' },
  requires: ['model_output', 'scenario_input'],
});
