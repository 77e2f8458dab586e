import { judgeEntry } from '../model-entry.ts';

export const contextRelevance = judgeEntry({
  name: 'context_relevance',
  description: 'How relevant the context the model was given (retrieved documents, tool results) is to the question. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how relevant the context given to the model is to the question it had to answer.',
  criteria: [
    'Relevant context contains information needed to answer the question.',
    'Large irrelevant portions lower the score.',
    'Judge the context, not the answer.',
  ],
  steps: [
    'Identify the question from the scenario input or the last user turn.',
    'Read the context and tool results and mark what helps answer it.',
    'Rate from 1 (irrelevant) to 5 (all relevant).',
  ],
  inputs: ['Question: {scenario_input}', 'Context given to the model: {model_input}', 'Tool results: {tool_calls}'],
  example: { data: 'Question: "When does the store open?" Context: "Store hours: 9am–6pm. Returns within 30 days."', answer: '[[4]] ((the hours answer it; the return policy is extra))' },
  requires: ['model_input'],
});
