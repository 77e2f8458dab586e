import { judgeEntry } from '../model-entry.ts';

export const isCodeFunctional = judgeEntry({
  name: 'is_code_functional',
  description: 'Does the code in the output do what the model input asks (correct behaviour, not just valid syntax)?',
  outputType: 'pass_fail',
  task: 'Decide whether the code in the AI output would correctly do what the request asks.',
  criteria: [
    'Trace the code\'s logic on typical inputs and the edge cases the request mentions.',
    'Syntax errors, wrong results, missing required functionality or crashes on normal input fail.',
    'Style is not judged.',
  ],
  steps: [
    'Read the request in the model input and note the required behaviour.',
    'Read the code and mentally run it on one or two inputs.',
    'Answer True only if it behaves as required.',
  ],
  inputs: ['Request (model input): {model_input}', 'Output with code: {model_output}'],
  example: { data: 'Request: "Return the maximum of a list." Code: def m(xs): return min(xs)', answer: '[[False]] ((returns the minimum))' },
  requires: ['model_output'],
});
