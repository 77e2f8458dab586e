import { judgeEntry } from '../model-entry.ts';

/**
 * As Okareo describes it (okareo-python-sdk examples/checks.ipynb, `get_all_checks()`): "A measure of
 * economy of words in the model_output. Lower scores indicate unnecessary verbosity in the
 * model_output. Ranges from 1 to 5." The output alone; judging it against the request is our
 * extension `conciseness_for_request`.
 */
export const conciseness = judgeEntry({
  name: 'conciseness',
  description: 'A measure of economy of words in the model_output: lower scores indicate unnecessary verbosity. Score 1–5 on the output alone; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate the economy of words of the AI output.',
  criteria: [
    'An economical output says what it says in as few words as it can.',
    'Unnecessary verbosity lowers the score: filler, repetition, needless hedging, restating the same point.',
    'Judge the wording of the output itself, not whether it answers a request.',
  ],
  steps: [
    'Read the output.',
    'Mark the words and sentences that could go without losing anything the output says.',
    'Rate from 1 (mostly unnecessary words) to 5 (no unnecessary words).',
  ],
  inputs: ['Output: {model_output}'],
  example: { data: 'Output: "Great question! The capital of France, a country in Europe, is Paris. Paris is the capital."', answer: '[[2]] ((padded and repeats itself))' },
  requires: ['model_output'],
});
