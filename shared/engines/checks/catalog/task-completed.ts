import { judgeEntry } from '../model-entry.ts';

export const taskCompleted = judgeEntry({
  name: 'task_completed',
  description: "Did the agent complete the user's latest request? Judged from the dialog (for context) and the final output.",
  outputType: 'pass_fail',
  task: "Decide whether the AI agent completed the user's latest request in this conversation.",
  criteria: [
    'Completed means the user\'s request was carried out or fully answered, not merely acknowledged or promised.',
    'Actions the agent claims must be backed by successful tool calls in the dialog when tools were used.',
    'A refusal, a hand-off to a human, an unanswered question or an action on the wrong item is not completion.',
    'Only the latest user request counts: an earlier request, done or not, neither passes nor fails it.',
  ],
  steps: [
    'Find the latest user turn in the dialog: that request is the task; earlier turns are context only.',
    'Follow the dialog and tool results after it to see what the agent actually did.',
    'Compare the final state and the final output with the request.',
    'Answer True only if every part of the latest request was completed.',
  ],
  inputs: ['Dialog: {message_history}', 'Final output: {model_output}'],
  example: {
    data: 'Dialog: the user asks to cancel reservation ABC123; the agent calls cancel_reservation(ABC123), which returns {"status": "cancelled"}, and confirms.',
    answer: '[[True]] ((The reservation was cancelled as requested and the tool confirmed it.))',
  },
});
