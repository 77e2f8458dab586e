/**
 * A token bucket: `ratePerMinute` tokens a minute, at most `burst` saved up. `take` answers how long
 * to wait for a token (0: taken now), so callers decide whether that wait fits their deadline.
 */
export function createTokenBucket(options: { ratePerMinute: number; burst?: number; now: () => number }) {
  const capacity = Math.max(1, options.burst ?? Math.ceil(options.ratePerMinute / 60));
  const perMs = options.ratePerMinute / 60_000;
  let tokens = capacity;
  let at = options.now();
  const refill = (): void => {
    const t = options.now();
    tokens = Math.min(capacity, tokens + (t - at) * perMs);
    at = t;
  };
  return {
    /** Takes a token if one is there and returns 0; else returns the ms until one will be. */
    tryTake(): number {
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.ceil((1 - tokens) / perMs);
    },
  };
}

