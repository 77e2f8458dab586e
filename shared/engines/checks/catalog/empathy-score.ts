import { judgeEntry } from '../model-entry.ts';

export const empathyScore = judgeEntry({
  name: 'empathy_score',
  description: 'How empathetic the agent is toward the user: acknowledges feelings, responds with care. Judged on the transcript (message_history) and, as Okareo\'s voice check does, by listening to the audio of the agent\'s final turn ({audio_output}, sent to the judge as input_audio when it is base64 wav or mp3); without that audio tone of voice is not judged. Score 1–5; passes at 3.',
  outputType: 'score',
  range: [1, 5],
  threshold: 3,
  task: 'Rate how empathetic the agent is toward the user in this conversation.',
  criteria: [
    'Empathy means acknowledging the user\'s situation and feelings and responding with care.',
    'Cold, dismissive or robotic replies to a distressed user lower the score.',
    'When a recording of the agent\'s final turn is attached, judge its tone of voice too; when only a text transcript is given, judge the words.',
  ],
  steps: [
    'Find moments where the user expresses a need, frustration or feeling.',
    'Read how the agent responds to each.',
    'Rate from 1 (dismissive) to 5 (consistently caring).',
  ],
  inputs: ['Transcript: {message_history}', 'Audio of the agent\'s final turn: {audio_output}'],
  example: { data: 'User: "My flight was cancelled and I will miss my mother\'s funeral." Agent: "Rebooking fee is $50."', answer: '[[1]] ((ignores the user\'s distress))' },
});
