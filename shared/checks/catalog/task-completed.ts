import { judgeEntry } from '../model-entry.ts';

export const taskCompleted = judgeEntry({
  name: 'task_completed',
  description: 'Did the agent complete the task the user asked for, judging from the whole dialog and the final output?',
  outputType: 'pass_fail',
  task: 'Decide whether the AI agent completed the task that the user asked for in this conversation.',
  criteria: [
    'Completed means the user\'s request was carried out or fully answered, not merely acknowledged or promised.',
    'Actions the agent claims must be backed by successful tool calls in the dialog when tools were used.',
    'A refusal, a hand-off to a human, an unanswered question or an action on the wrong item is not completion.',
  ],
  steps: [
    'Read the scenario input (if provided) and the user turns to find what was asked.',
    'Follow the dialog and tool results to see what the agent actually did.',
    'Compare the final state and the final output with the request.',
    'Answer True only if every part of the request was completed.',
  ],
  inputs: ['Scenario input: {scenario_input}', 'Dialog: {message_history}', 'Final output: {model_output}'],
  example: {
    data: 'Dialog: the user asks to cancel reservation ABC123; the agent calls cancel_reservation(ABC123), which returns {"status": "cancelled"}, and confirms.',
    answer: '[[True]] ((The reservation was cancelled as requested and the tool confirmed it.))',
  },
});
