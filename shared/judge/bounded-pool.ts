/**
 * At most `concurrency` tasks at once; the rest wait in order. A waiter whose signal aborts leaves
 * the queue, so a caller's deadline also bounds its wait for a slot.
 */
export function createBoundedPool(concurrency: number) {
  let active = 0;
  const queue: Array<{ go: () => void }> = [];
  const release = (): void => {
    const next = queue.shift();
    if (next) next.go();
    else active -= 1;
  };
  const acquire = (signal: AbortSignal): Promise<void> => {
    if (active < concurrency) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        go: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = queue.indexOf(entry);
        if (i >= 0) queue.splice(i, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a judge slot'));
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(entry);
    });
  };
  return {
    async run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    inFlight: () => active,
    waiting: () => queue.length,
  };
}
