import { createHash } from 'node:crypto';
import type { JudgeRequest, JudgeResponse } from '../checks/index.ts';

// Recordings change the answer as much as the text: each one's format and the hash of its bytes.
function audioKey(request: JudgeRequest): string {
  return (request.audio?.parts ?? []).map((p) => `${p.format}:${createHash('sha256').update(p.data).digest('hex')}`).join(',');
}

/** The identity of a judge request: everything that can change the answer. */
export function judgeRequestKey(request: JudgeRequest, defaultModel: string): string {
  const parts = [request.model ?? defaultModel, String(request.temperature ?? 0), String(request.maxTokens ?? ''), request.tokenProbabilities ? 'tokens' : '', request.system, request.user];
  if (request.audio) parts.push(audioKey(request));
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/**
 * Answers of identical judge requests, least recently used dropped first. Concurrent identical
 * requests share one call (the promise is cached while in flight); failures are not kept.
 */
export function createJudgeCache(maxEntries: number) {
  const entries = new Map<string, Promise<JudgeResponse>>();
  let hits = 0;
  return {
    get(key: string, call: () => Promise<JudgeResponse>): Promise<JudgeResponse> {
      const found = entries.get(key);
      if (found) {
        hits += 1;
        entries.delete(key);
        entries.set(key, found);
        return found.then((r) => ({ ...r, cached: true }));
      }
      if (maxEntries <= 0) return call();
      const pending = call();
      entries.set(key, pending);
      pending.catch(() => entries.delete(key));
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return pending;
    },
    hits: () => hits,
    size: () => entries.size,
  };
}
