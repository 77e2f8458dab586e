/**
 * Per key (a check's code): consecutive evaluations that cost a sandbox process (a timeout, a
 * memory overrun, a crash). A key with any such failure in its current streak is suspect and gets
 * one process at a time; after `failures` in a row it is paused for `cooldownMs`, and its
 * evaluations are refused at once until then (afterwards one is tried again).
 */
export interface FailureBreaker {
  /** Why the key may not run now, or null. */
  refusal(key: string): string | null;
  suspect(key: string): boolean;
  record(key: string, outcome: { ok: true } | { ok: false; reason: string }): void;
}

export interface FailureBreakerOptions {
  failures: number;
  cooldownMs: number;
  now: () => number;
}

interface KeyState {
  streak: number;
  lastReason: string;
  pausedUntil: number;
}

export function createFailureBreaker(options: FailureBreakerOptions): FailureBreaker {
  const keys = new Map<string, KeyState>();
  return {
    refusal(key) {
      const s = keys.get(key);
      if (!s || s.pausedUntil <= options.now()) return null;
      return `paused until ${new Date(s.pausedUntil).toISOString()}: its last ${s.streak} evaluations each cost a sandbox process (the last: ${s.lastReason})`;
    },
    suspect: (key) => (keys.get(key)?.streak ?? 0) > 0,
    record(key, outcome) {
      if (outcome.ok) {
        keys.delete(key);
        return;
      }
      const s = keys.get(key) ?? { streak: 0, lastReason: '', pausedUntil: 0 };
      s.streak++;
      s.lastReason = outcome.reason;
      if (s.streak >= options.failures) s.pausedUntil = options.now() + options.cooldownMs;
      keys.set(key, s);
      // Bounded: keys are check sources; forget the oldest when many hostile checks come and go.
      if (keys.size > 10_000) keys.delete(keys.keys().next().value!);
    },
  };
}
