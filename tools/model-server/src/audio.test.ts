import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { audioOf, withHeardAudio } from './audio.ts';
import { textReply } from './reply.ts';
import type { ChatRequest } from './request.ts';

const WAV = Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVE').toString('base64');
const sha = createHash('sha256').update(Buffer.from(WAV, 'base64')).digest('hex');

const request = (part: Record<string, unknown>, role = 'user'): ChatRequest => ({ model: 'mock-judge', messages: [{ role, content: [{ type: 'text', text: 'data' }, { type: 'input_audio', ...part }] }] });

describe('input_audio parts at the model server', () => {
  it('hears a wav part: its format, size and hash', () => {
    expect(audioOf(request({ input_audio: { data: WAV, format: 'wav' } }))).toEqual({ heard: [{ format: 'wav', bytes: 12, sha256: sha }] });
  });

  it('refuses what the chat API refuses: another format, bad base64, audio outside a user message', () => {
    expect(audioOf(request({ input_audio: { data: WAV, format: 'flac' } }))).toEqual({ error: "messages[0].content[1].input_audio.format: expected one of 'wav', 'mp3'." });
    expect(audioOf(request({ input_audio: { data: 'no!', format: 'wav' } }))).toEqual({ error: 'messages[0].content[1].input_audio.data: expected base64-encoded audio.' });
    expect(audioOf(request({ input_audio: { data: WAV, format: 'wav' } }, 'system'))).toEqual({ error: 'messages[0].content[1]: input_audio parts are only allowed in user messages.' });
  });

  it('a judge answer names the recordings it heard inside its explanation; other answers stay as they are', () => {
    const heard = [{ format: 'wav', bytes: 12, sha256: sha }];
    expect(withHeardAudio(textReply('judge', '[[5]]((Fine.))'), heard).content).toBe(`[[5]]((Fine. Heard 1 recording: wav 12 bytes sha256 ${sha.slice(0, 12)}.))`);
    expect(withHeardAudio(textReply('echo', 'You said: hi'), heard).content).toBe('You said: hi');
  });
});
