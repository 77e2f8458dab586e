/**
 * Group commit: callers hand in items and wait until they are durably written; items that arrive
 * while a write is running are written together by the next one. At low load every write carries
 * what one caller gave (no added latency: no timer to wait for); under load writes grow up to
 * `maxItems`, so a store or broker round trip is paid per batch, not per item. A failed write fails
 * every caller of that batch (each decides to retry), unless `isolateFailures` writes them one by
 * one to find the culprit; later batches are unaffected.
 */
export interface GroupCommit<T> {
  /** Resolves when `items` are written (in one batch with whatever else was waiting). */
  write(items: readonly T[]): Promise<void>;
  /** Resolves when nothing is waiting or being written. */
  idle(): Promise<void>;
}

export interface GroupCommitOptions {
  /** Items per write, at most (a caller's items are never split). Default 1,000. */
  maxItems?: number;
  /**
   * When a write of several callers' items fails, write each caller's items alone and settle each
   * by its own result: one poison item then fails only its caller, not its batch-mates.
   */
  isolateFailures?: boolean;
  /** Called after each write with its size and duration (metrics, logs). */
  onFlush?: (items: number, ms: number, error: unknown) => void;
}

interface Waiting<T> {
  items: readonly T[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export function createGroupCommit<T>(flush: (items: T[]) => Promise<void>, options: GroupCommitOptions = {}): GroupCommit<T> {
  const maxItems = options.maxItems ?? 1_000;
  const queue: Waiting<T>[] = [];
  let running: Promise<void> | null = null;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch: Waiting<T>[] = [];
      let n = 0;
      while (queue.length > 0 && (batch.length === 0 || n + queue[0].items.length <= maxItems)) {
        const w = queue.shift()!;
        batch.push(w);
        n += w.items.length;
      }
      const items = batch.flatMap((w) => w.items);
      const started = performance.now();
      try {
        await flush(items);
        options.onFlush?.(items.length, performance.now() - started, null);
        for (const w of batch) w.resolve();
      } catch (err) {
        options.onFlush?.(items.length, performance.now() - started, err);
        if (options.isolateFailures && batch.length > 1) {
          for (const w of batch) await flush([...w.items]).then(w.resolve, w.reject);
        } else {
          for (const w of batch) w.reject(err);
        }
      }
    }
  }

  function start(): void {
    // setImmediate: callers that arrive in the same turn of the event loop share the first write.
    running ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(drain)
      .finally(() => {
        running = null;
        if (queue.length > 0) start();
      });
  }

  return {
    write(items) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ items, resolve, reject });
        start();
      });
    },
    async idle() {
      while (running) await running;
    },
  };
}
