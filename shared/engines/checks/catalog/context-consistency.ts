import { judgeEntry } from '../model-entry.ts';

export const contextConsistency = judgeEntry({
  name: 'context_consistency',
  description: 'Does the output align with, and is it supported by, the input it was given? External facts are ignored: a claim the input does not support fails, even if true.',
  outputType: 'pass_fail',
  task: 'Decide whether the AI output aligns with and is supported by the input it was given.',
  criteria: [
    'Every claim in the output must be supported by the given input.',
    'Ignore external facts: a claim the input does not support fails even when it is true or general knowledge.',
    'A contradiction of the input fails.',
  ],
  steps: [
    'Read the input given to the model.',
    'Find support in it for each claim in the output.',
    'Answer True only if every claim is supported and nothing contradicts it.',
  ],
  inputs: ['Input given to the model: {model_input}', 'Output: {model_output}'],
  example: { data: 'Input: "Refunds take 5–7 business days." Output: "Your refund takes 5–7 business days; Paris is the capital of France."', answer: '[[False]] ((the claim about Paris is not supported by the input))' },
  requires: ['model_output', 'model_input'],
});
