import { RetriableError } from '../../runtime/errors/index.ts';

/**
 * A judge call that failed in a way trying again can fix (429, 5xx, a timeout, a lost connection,
 * an open circuit). `retryAfterMs` is the provider's Retry-After, when it sent one.
 */
export class JudgeRetriableError extends RetriableError {
  constructor(
    message: string,
    readonly retryAfterMs: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'JudgeRetriableError';
  }
}

/** `Retry-After` as seconds or an HTTP date, or `retry-after-ms`; null when absent or unreadable. */
export function retryAfterMsOf(headers: { get(name: string): string | null } | undefined, nowMs: number): number | null {
  if (!headers) return null;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
