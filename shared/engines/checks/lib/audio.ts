import type { AudioPart, ChatMessage } from '../../../contracts/schemas/index.ts';

/** `{audio_messages}`: the turns that carry audio, each with its text and its audio parts; null when none does. */
export function audioMessagesOf(messages: readonly ChatMessage[]): ChatMessage[] | null {
  const withAudio = messages.filter((m) => m.audio && m.audio.length > 0);
  return withAudio.length > 0 ? withAudio : null;
}

/** `{audio_output}`: the audio parts of the final assistant turn; null when it has none. */
export function audioOutputOf(messages: readonly ChatMessage[]): AudioPart[] | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    return m.audio && m.audio.length > 0 ? m.audio : null;
  }
  return null;
}

function decodedBytes(base64: string): number {
  const trimmed = base64.replace(/\s+/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

// A text judge cannot hear base64: it reads what the audio is, where it is, its transcript and its size.
function forJudgePart(p: AudioPart): Record<string, unknown> {
  const { content, ...rest } = p;
  return content === undefined ? rest : { ...rest, audio_bytes: decodedBytes(content) };
}

/**
 * Turns or audio parts as a judge reads them: each part's base64 content replaced by its size.
 * A list with no audio comes back as it is.
 */
export function audioForJudge(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  let changed = false;
  const out = value.map((item: unknown) => {
    if (typeof item !== 'object' || item === null) return item;
    const m = item as Partial<ChatMessage> & AudioPart;
    if (Array.isArray(m.audio)) {
      changed = true;
      return { ...m, audio: m.audio.map(forJudgePart) };
    }
    if (m.role === undefined && typeof m.content === 'string') {
      changed = true;
      return forJudgePart(m);
    }
    return item;
  });
  return changed ? out : value;
}
