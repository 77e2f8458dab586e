import type { AudioPart } from '../../../../shared/contracts/schemas/index.ts';
import { asString, isRecord } from './values.ts';

/**
 * A message part that carries audio → the audio kept on the message, or undefined. The shapes:
 * the GenAI conventions' `blob{modality, mime_type, content}`, `uri{modality, uri}` and
 * `file{modality, file_id}` with modality `audio`; OpenAI's `input_audio{input_audio:{data,
 * format}}`; and `@opentelemetry/instrumentation-openai`'s Responses records, which keep that
 * item but rename its type to `audio`.
 */
export function audioPart(p: Record<string, unknown>): AudioPart | undefined {
  const openAi = isRecord(p.input_audio) ? p.input_audio : undefined;
  if (p.modality !== 'audio' && p.type !== 'audio' && p.type !== 'input_audio' && !openAi) return undefined;
  const out: AudioPart = {};
  const mime = asString(p.mime_type) ?? asString(p.mimeType) ?? asString(p.mediaType);
  if (mime) out.mime_type = mime;
  const format = asString(openAi?.format) ?? asString(p.format);
  if (format) out.format = format;
  const content = asString(openAi?.data) ?? asString(p.content) ?? asString(p.data);
  if (content) out.content = content;
  const uri = asString(p.uri) ?? asString(p.url);
  if (uri) out.uri = uri;
  const fileId = asString(p.file_id);
  if (fileId) out.file_id = fileId;
  const transcript = asString(p.transcript);
  if (transcript) out.transcript = transcript;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** An OpenAI assistant message's `audio {id, data, transcript, format?}` (audio output). */
export function openAiMessageAudio(v: unknown): AudioPart | undefined {
  if (!isRecord(v)) return undefined;
  const out: AudioPart = {};
  const data = asString(v.data);
  if (data) out.content = data;
  const transcript = asString(v.transcript);
  if (transcript) out.transcript = transcript;
  const format = asString(v.format);
  if (format) out.format = format;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The audio parts of an OpenAI-style content list (none for text). */
export function openAiContentAudio(v: unknown): AudioPart[] {
  if (!Array.isArray(v)) return [];
  const out: AudioPart[] = [];
  for (const p of v) {
    const a = isRecord(p) ? audioPart(p) : undefined;
    if (a) out.push(a);
  }
  return out;
}
