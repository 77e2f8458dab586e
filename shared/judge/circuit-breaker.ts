/**
 * Closed → open after `failureThreshold` failures in a row; open for `cooldownMs`, then half-open:
 * one trial call goes through, and its outcome closes or re-opens the circuit.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
  now: () => number;
  onChange?: (state: CircuitState, reason: string) => void;
}

export function createCircuitBreaker(options: CircuitBreakerOptions) {
  let state: CircuitState = 'closed';
  let failures = 0;
  let openedAt = 0;
  let trialInFlight = false;
  let lastReason = '';
  let opened = 0;
  let closed = 0;
  const set = (next: CircuitState, reason: string): void => {
    if (next === state) return;
    state = next;
    if (next === 'open') opened += 1;
    if (next === 'closed') closed += 1;
    options.onChange?.(next, reason);
  };
  return {
    /** Null when the call may go ahead; else why not and for how long (ms). */
    admit(): { reason: string; retryInMs: number } | null {
      if (state === 'open') {
        const left = openedAt + options.cooldownMs - options.now();
        if (left > 0) return { reason: `judge circuit open after ${options.failureThreshold} failures in a row (last: ${lastReason})`, retryInMs: left };
        set('half-open', 'cooldown over');
      }
      if (state === 'half-open') {
        if (trialInFlight) return { reason: `judge circuit half-open, a trial call is in flight (last failure: ${lastReason})`, retryInMs: Math.min(1_000, options.cooldownMs) };
        trialInFlight = true;
      }
      return null;
    },
    success(): void {
      failures = 0;
      trialInFlight = false;
      set('closed', 'a call succeeded');
    },
    failure(reason: string): void {
      lastReason = reason;
      failures += 1;
      const wasTrial = state === 'half-open';
      trialInFlight = false;
      if (wasTrial || failures >= options.failureThreshold) {
        openedAt = options.now();
        set('open', reason);
      }
    },
    /** An admitted call that never reached the judge (no token, a bad request): frees the trial slot. */
    release(): void {
      trialInFlight = false;
    },
    state: () => state,
    counts: () => ({ opened, closed }),
  };
}

export type CircuitBreaker = ReturnType<typeof createCircuitBreaker>;
