import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../contracts/schemas/index.ts';
import { judgeAudioPlan } from './judge-audio.ts';
import { audioMessagesOf, audioOutputOf } from './lib/audio.ts';
import { assistant, inputFrom, user } from './test-support.ts';

// 12 bytes and 6 bytes of "audio": the bytes do not matter, only that they reach the judge exactly.
const WAV = Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVE').toString('base64');
const MP3 = Buffer.from('ID3\u0003\u0000\u0000').toString('base64');

function withAudio(messages: ChatMessage[]) {
  return inputFrom(messages, { audio_messages: audioMessagesOf(messages), audio_output: audioOutputOf(messages) });
}

describe('judgeAudioPlan: the audio a judge request carries', () => {
  it('a wav part of the final agent turn becomes one recording with its exact base64', () => {
    const input = withAudio([user('Hi.'), { ...assistant('Hello!'), audio: [{ format: 'wav', content: WAV }] }]);
    expect(judgeAudioPlan(['audio_output'], input)).toEqual({
      parts: [{ data: WAV, format: 'wav' }],
      listing: [{ recording: 1, from: 'audio_output', role: 'assistant', format: 'wav', audio_bytes: 12 }],
      refusedListing: [{ from: 'audio_output', role: 'assistant', format: 'wav', audio_bytes: 12, not_sent: 'the judge model did not accept audio' }],
    });
  });

  it('an mp3 known only by its mime type is sent as mp3', () => {
    const input = withAudio([{ ...assistant('Hello!'), audio: [{ mime_type: 'audio/mpeg', content: MP3 }] }]);
    expect(judgeAudioPlan(['audio_output'], input)?.parts).toEqual([{ data: MP3, format: 'mp3' }]);
  });

  it('a format the API does not take, a uri-only part and bad base64 are described with the reason, not sent', () => {
    const input = withAudio([
      { ...user('Hi.'), audio: [{ format: 'flac', content: WAV }, { mime_type: 'audio/wav', uri: 'gs://calls/1.wav' }] },
      { ...assistant('Hello!'), audio: [{ format: 'wav', content: 'not base64!' }] },
    ]);
    expect(judgeAudioPlan(['audio_messages'], input)).toMatchObject({
      parts: [],
      listing: [
        { from: 'audio_messages', role: 'user', format: 'flac', audio_bytes: 12, not_sent: 'its format is not one the judge API accepts (wav, mp3)' },
        { from: 'audio_messages', role: 'user', mime_type: 'audio/wav', uri: 'gs://calls/1.wav', not_sent: 'only where the audio lives is in the trace (a uri or file id), not the audio itself' },
        { from: 'audio_messages', role: 'assistant', format: 'wav', not_sent: 'its content is not valid base64 audio' },
      ],
    });
  });

  it('sends whole recordings up to the byte bound; the one that would pass it is described, never cut', () => {
    const input = withAudio([{ ...user('Hi.'), audio: [{ format: 'wav', content: WAV }] }, { ...assistant('Hello!'), audio: [{ format: 'wav', content: WAV }, { format: 'mp3', content: MP3 }] }]);
    const plan = judgeAudioPlan(['audio_messages', 'audio_output'], input, 15);
    // The final turn's wav is the user's wav (same bytes): sent once.
    expect(plan?.parts).toEqual([{ data: WAV, format: 'wav' }]);
    expect(plan?.listing).toEqual([
      { recording: 1, from: 'audio_messages', role: 'user', format: 'wav', audio_bytes: 12 },
      { from: 'audio_messages', role: 'assistant', format: 'mp3', audio_bytes: 6, not_sent: 'sending it would pass the bound of 15 audio bytes per judge request' },
    ]);
  });

  it('is null when the template reads no audio variable or the unit has no audio', () => {
    const audio = withAudio([{ ...assistant('Hello!'), audio: [{ format: 'wav', content: WAV }] }]);
    expect(judgeAudioPlan(['message_history'], audio)).toBeNull();
    expect(judgeAudioPlan(['audio_output', 'audio_messages'], withAudio([user('Hi.'), assistant('Hello!')]))).toBeNull();
  });
});
