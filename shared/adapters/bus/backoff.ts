export interface BackoffPolicy {
  /** Delay before the first retry, before jitter. */
  initialDelayMs: number;
  /** Cap of the delay before jitter, however many attempts failed. */
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { initialDelayMs: 200, maxDelayMs: 30_000 };

/**
 * Capped exponential backoff with "equal jitter": half the step is fixed, half random, so retries
 * of many consumers spread out but never collapse to zero delay. `attempt` counts from 0.
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 0), 30);
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (no timer left behind). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
