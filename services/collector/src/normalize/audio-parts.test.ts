import { describe, expect, it } from 'vitest';
import { fromOpenAiMessage, fromOtelMessage } from './messages.ts';

const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEA';

describe('audio parts of messages are kept', () => {
  it('the GenAI conventions: blob, uri and file parts with modality audio', () => {
    const [m] = fromOtelMessage({
      role: 'user',
      parts: [
        { type: 'text', content: 'Listen to this' },
        { type: 'blob', modality: 'audio', mime_type: 'audio/wav', content: WAV },
        { type: 'uri', modality: 'audio', uri: 'https://example.com/a.mp3' },
        { type: 'file', modality: 'audio', file_id: 'file_1' },
        { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0K' },
      ],
    }, 'user');
    expect(m).toEqual({
      role: 'user',
      content: 'Listen to this\n[audio: audio/wav]\n[audio: https://example.com/a.mp3]\n[audio file: file_1]\n[image: image/png]',
      audio: [{ mime_type: 'audio/wav', content: WAV }, { uri: 'https://example.com/a.mp3' }, { file_id: 'file_1' }],
    });
  });

  it('@opentelemetry/instrumentation-openai on the Responses API: input_audio renamed to type audio', () => {
    expect(fromOtelMessage({ role: 'user', parts: [{ type: 'audio', input_audio: { data: WAV, format: 'wav' } }] }, 'user')).toEqual([
      { role: 'user', content: null, audio: [{ format: 'wav', content: WAV }] },
    ]);
  });

  it('OpenAI chat messages: input_audio content parts and an assistant audio output', () => {
    expect(fromOpenAiMessage({ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } }] }, 'user')).toEqual({
      role: 'user', content: 'hi', audio: [{ format: 'wav', content: WAV }],
    });
    expect(fromOpenAiMessage({ role: 'assistant', content: null, audio: { id: 'audio_1', data: WAV, transcript: 'I am sorry to hear that.' } }, 'assistant')).toEqual({
      role: 'assistant', content: null, audio: [{ content: WAV, transcript: 'I am sorry to hear that.' }],
    });
    expect(fromOpenAiMessage({ role: 'user', content: 'plain' }, 'user')).toEqual({ role: 'user', content: 'plain' });
  });
});
