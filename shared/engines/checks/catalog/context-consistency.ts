import { judgeEntry } from '../model-entry.ts';

export const contextConsistency = judgeEntry({
  name: 'context_consistency',
  description: 'Is the output consistent with the context the model was given (no contradiction of it)?',
  outputType: 'pass_fail',
  task: 'Decide whether the AI output is consistent with the context it was given.',
  criteria: [
    'The output must not contradict the context or tool results.',
    'Claims absent from the context are allowed only if general knowledge, not specifics.',
    'A single contradiction fails.',
  ],
  steps: [
    'Read the context given to the model.',
    'Check each claim in the output against it.',
    'Answer True if nothing contradicts the context.',
  ],
  inputs: ['Context given to the model: {model_input}', 'Output: {model_output}'],
  example: { data: 'Context: "Refunds take 5–7 business days." Output: "Your refund will arrive within 24 hours."', answer: '[[False]] ((contradicts the stated refund time))' },
  requires: ['model_output', 'model_input'],
});
