import { judgeEntry } from '../model-entry.ts';

export const empathyScore = judgeEntry({
  name: 'empathy_score',
  description: 'How empathetic the agent is toward the user: acknowledges feelings, responds with care. Scored on the audio messages when the unit has them, otherwise on the text transcript (message_history): then tone of voice is not judged. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how empathetic the agent is toward the user in this conversation.',
  criteria: [
    'Empathy means acknowledging the user\'s situation and feelings and responding with care.',
    'Cold, dismissive or robotic replies to a distressed user lower the score.',
    'When only a text transcript is given, judge the words; tone of voice is not available.',
  ],
  steps: [
    'Find moments where the user expresses a need, frustration or feeling.',
    'Read how the agent responds to each.',
    'Rate from 1 (dismissive) to 5 (consistently caring).',
  ],
  inputs: ['Transcript: {message_history}', 'Audio messages: {audio_messages}'],
  example: { data: 'User: "My flight was cancelled and I will miss my mother\'s funeral." Agent: "Rebooking fee is $50."', answer: '[[1]] ((ignores the user\'s distress))' },
});
