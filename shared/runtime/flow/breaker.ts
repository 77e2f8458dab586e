/**
 * A circuit breaker. Closed → open after `failureThreshold` failures in a row; open for
 * `cooldownMs`, then half-open: the next outcome closes it (a success) or opens it again at once
 * (a failure). A failure while open (a call admitted before it opened) restarts the cool-down.
 * `admit` lets one trial call at a time through a half-open circuit; `blocked` only says whether
 * the cool-down still runs (for callers that bound the trial themselves, as the sandbox pool does
 * by running a failing key in one process at a time).
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  now: () => number;
  onChange?: (state: BreakerState, reason: string) => void;
}

/** Why a call may not go ahead now; callers word it for their readers. */
export interface BreakerRefusal {
  state: 'open' | 'half-open';
  /** When a call may be tried again (ms). */
  retryInMs: number;
  /** Failures in the current streak. */
  failures: number;
  /** The last failure's reason. */
  lastReason: string;
}

export interface Breaker {
  /** Null when the cool-down does not run (closed, or half-open); else the refusal. Reserves nothing. */
  blocked(): BreakerRefusal | null;
  /** Null when the call may go ahead (in half-open it is the trial, until its outcome or `release`). */
  admit(): BreakerRefusal | null;
  success(): void;
  failure(reason: string): void;
  /** An admitted call that never ran (no token, a bad request): frees the trial slot. */
  release(): void;
  state(): BreakerState;
  /** Failures in the current streak (0 after a success). */
  failures(): number;
  counts(): { opened: number; closed: number };
}

export function createBreaker(options: BreakerOptions): Breaker {
  let state: BreakerState = 'closed';
  let failures = 0;
  let openedAt = 0;
  let trialInFlight = false;
  let lastReason = '';
  let opened = 0;
  let closed = 0;
  const set = (next: BreakerState, reason: string): void => {
    if (next === state) return;
    state = next;
    if (next === 'open') opened += 1;
    if (next === 'closed') closed += 1;
    options.onChange?.(next, reason);
  };
  const blocked = (): BreakerRefusal | null => {
    if (state !== 'open') return null;
    const left = openedAt + options.cooldownMs - options.now();
    if (left > 0) return { state: 'open', retryInMs: left, failures, lastReason };
    set('half-open', 'cooldown over');
    return null;
  };
  return {
    blocked,
    admit() {
      const refused = blocked();
      if (refused) return refused;
      if (state === 'half-open') {
        if (trialInFlight) return { state: 'half-open', retryInMs: Math.min(1_000, options.cooldownMs), failures, lastReason };
        trialInFlight = true;
      }
      return null;
    },
    success() {
      failures = 0;
      trialInFlight = false;
      set('closed', 'a call succeeded');
    },
    failure(reason) {
      lastReason = reason;
      failures += 1;
      const wasTrial = state === 'half-open';
      trialInFlight = false;
      if (wasTrial || failures >= options.failureThreshold) {
        openedAt = options.now();
        set('open', reason);
      }
    },
    release() {
      trialInFlight = false;
    },
    state: () => state,
    failures: () => failures,
    counts: () => ({ opened, closed }),
  };
}

/** One breaker per key (e.g. per check's code), each as `createBreaker`. */
export interface KeyedBreaker {
  blocked(key: string): BreakerRefusal | null;
  /** The key's current streak has a failure. */
  failing(key: string): boolean;
  success(key: string): void;
  failure(key: string, reason: string): void;
}

export function createKeyedBreaker(options: Omit<BreakerOptions, 'onChange'> & { maxKeys?: number }): KeyedBreaker {
  const maxKeys = options.maxKeys ?? 10_000;
  const byKey = new Map<string, Breaker>();
  return {
    blocked: (key) => byKey.get(key)?.blocked() ?? null,
    failing: (key) => (byKey.get(key)?.failures() ?? 0) > 0,
    // A closed breaker with no streak is the same as none: only failing keys are kept.
    success: (key) => void byKey.delete(key),
    failure(key, reason) {
      let b = byKey.get(key);
      if (!b) byKey.set(key, (b = createBreaker(options)));
      b.failure(reason);
      // Bounded: keys may be hostile input that comes and goes; forget the oldest.
      if (byKey.size > maxKeys) byKey.delete(byKey.keys().next().value!);
    },
  };
}
