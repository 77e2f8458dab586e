// Failed authentication is throttled per client address and per key prefix: past `maxFailures`
// failures within `windowMs`, a further failure from the address (or with a key of that prefix) is
// answered 429 with Retry-After until the window ends. Its users look the key up first, so a valid
// key is never refused for someone else's failures. Successes do not count.
// Memory is bounded: at most `maxTracked` addresses and prefixes, the oldest forgotten first.

export interface ThrottleOptions {
  maxFailures: number;
  windowMs: number;
  maxTracked?: number;
  now?: () => number;
}

export const DEFAULT_ADDRESS_THROTTLE = { maxFailures: 30, windowMs: 60_000 };
export const DEFAULT_PREFIX_THROTTLE = { maxFailures: 10, windowMs: 60_000 };
/** How much of a presented key names its "prefix": `tc_admin_` and 7 random characters. */
export const KEY_PREFIX_CHARS = 16;

export interface Throttle {
  /** Milliseconds until `subject` may try again; 0 when it may now. */
  retryAfterMs(subject: string): number;
  failed(subject: string): void;
}

export function createThrottle(options: ThrottleOptions): Throttle {
  const now = options.now ?? Date.now;
  const maxTracked = options.maxTracked ?? 100_000;
  const windows = new Map<string, { start: number; failures: number }>();
  const current = (subject: string) => {
    const w = windows.get(subject);
    if (w && now() - w.start < options.windowMs) return w;
    if (w) windows.delete(subject);
    return null;
  };
  return {
    retryAfterMs(subject) {
      const w = current(subject);
      return w && w.failures >= options.maxFailures ? Math.max(1, w.start + options.windowMs - now()) : 0;
    },
    failed(subject) {
      const w = current(subject);
      if (w) return void w.failures++;
      if (windows.size >= maxTracked) windows.delete(windows.keys().next().value!);
      windows.set(subject, { start: now(), failures: 1 });
    },
  };
}
