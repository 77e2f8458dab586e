import { describe, expect, it } from 'vitest';
import { judgeRequestKey } from './judge-cache.ts';

const textOnly = { system: 's', user: 'u' };
const withAudio = (data: string, format: 'wav' | 'mp3' = 'wav') => ({ system: 's', user: 'u', audio: { parts: [{ data, format }], textOnly } });

describe('judgeRequestKey', () => {
  it('differs by the audio a request carries: none, other bytes, another format', () => {
    const keys = [judgeRequestKey(textOnly, 'm'), judgeRequestKey(withAudio('UklGRg=='), 'm'), judgeRequestKey(withAudio('UklGRh=='), 'm'), judgeRequestKey(withAudio('UklGRg==', 'mp3'), 'm')];
    expect(new Set(keys).size).toBe(4);
  });

  it('is the same for the same audio', () => {
    expect(judgeRequestKey(withAudio('UklGRg=='), 'm')).toBe(judgeRequestKey(withAudio('UklGRg=='), 'm'));
  });
});
