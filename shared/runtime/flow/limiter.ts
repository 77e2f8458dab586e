/**
 * At most `concurrency` tasks at once (at least one); the rest wait in order. A waiter whose
 * signal aborts leaves the line, so a caller's deadline also bounds its wait for a slot.
 */
export interface Limiter {
  /** Runs `task` once a slot is free; rejects without running it if `signal` aborts first. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  inFlight(): number;
  waiting(): number;
  /** Resolves once nothing runs or waits. */
  idle(): Promise<void>;
}

export function createLimiter(concurrency: number): Limiter {
  const limit = Math.max(1, Math.floor(concurrency));
  let active = 0;
  const line: Array<{ go: () => void }> = [];
  let idleWaiters: Array<() => void> = [];
  const settleIdle = (): void => {
    if (active > 0 || line.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };
  const release = (): void => {
    // The slot passes straight to the next waiter: no newcomer overtakes it.
    const next = line.shift();
    if (next) next.go();
    else active -= 1;
    settleIdle();
  };
  const acquire = (signal: AbortSignal | undefined): Promise<void> => {
    if (active < limit) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = line.indexOf(entry);
        if (i >= 0) line.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a slot'));
        settleIdle();
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      line.push(entry);
    });
  };
  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    inFlight: () => active,
    waiting: () => line.length,
    idle() {
      if (active === 0 && line.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

/**
 * `fn` over every item, at most `concurrency` at once, started in item order. After a failure no
 * further item starts (those running finish), and the promise rejects with the first failure.
 */
export async function forEachLimited<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  const limiter = createLimiter(concurrency);
  let failed = false;
  await Promise.all(
    items.map((item, i) =>
      limiter.run(async () => {
        if (failed) return;
        try {
          await fn(item, i);
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    ),
  );
}
