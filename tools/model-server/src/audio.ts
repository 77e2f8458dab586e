import { createHash } from 'node:crypto';
import type { Reply } from './reply.ts';
import type { ChatRequest } from './request.ts';

/** The model that answers 400 to audio input, as a text-only OpenAI model does. */
export const TEXT_ONLY_MODEL = 'mock-judge-text';

const FORMATS = new Set(['wav', 'mp3']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

interface HeardAudio {
  format: string;
  bytes: number;
  sha256: string;
}

/**
 * The request's `input_audio` content parts, checked as the chat API checks them (base64 `data`, a
 * `format` of wav or mp3): an error message for a 400, or what was heard.
 */
export function audioOf(request: ChatRequest): { error: string } | { heard: HeardAudio[] } {
  const heard: HeardAudio[] = [];
  for (const [i, m] of request.messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, part] of m.content.entries()) {
      if (part.type !== 'input_audio') continue;
      if (m.role !== 'user') return { error: `messages[${i}].content[${j}]: input_audio parts are only allowed in user messages.` };
      const audio = part.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof audio?.data !== 'string' || !BASE64.test(audio.data) || audio.data === '') return { error: `messages[${i}].content[${j}].input_audio.data: expected base64-encoded audio.` };
      if (typeof audio.format !== 'string' || !FORMATS.has(audio.format)) return { error: `messages[${i}].content[${j}].input_audio.format: expected one of 'wav', 'mp3'.` };
      const bytes = Buffer.from(audio.data, 'base64');
      heard.push({ format: audio.format, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
  }
  return { heard };
}

/** A judge answer that says which recordings it heard, inside its explanation: tests see the audio arrived. */
export function withHeardAudio(reply: Reply, heard: readonly HeardAudio[]): Reply {
  if (heard.length === 0 || reply.mode !== 'judge' || reply.content === null || !reply.content.endsWith('))')) return reply;
  const what = heard.map((h) => `${h.format} ${h.bytes} bytes sha256 ${h.sha256.slice(0, 12)}`).join('; ');
  return { ...reply, content: `${reply.content.slice(0, -2)} Heard ${heard.length} recording${heard.length === 1 ? '' : 's'}: ${what}.))` };
}
