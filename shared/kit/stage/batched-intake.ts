import { backoffDelayMs, sleepUnlessAborted, type BackoffPolicy, type DeferredWork } from '../../adapters/bus/index.ts';
import { RetriableError, isRetriable } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { RecordPosition } from './window.ts';

export interface BatchedIntakeOptions<R> {
  /**
   * Completes records read together, in one go (one store query for all), returning them in the
   * same order. A retriable failure is tried again with backoff, holding every later record; a
   * permanent one is tried again record by record, and a record that still fails is dead-lettered.
   */
  resolve: (records: readonly R[]) => Promise<readonly R[]>;
  /** Takes one completed record (the window's add); a retriable throw is tried again, in place. */
  add: (record: R, at: RecordPosition) => void;
  /** Records resolved together, at most. */
  maxBatch: number;
  backoff: BackoffPolicy;
  log: Logger;
}

interface Pending<R> {
  record: R;
  at: RecordPosition;
  settled: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Records taken in their read order but added to the window in batches: the consumer's handler
 * hands each record over as DeferredWork (so the bus holds its offset uncommitted until it is in
 * the window, or dead-lettered) and reads on; one loop resolves what came meanwhile together and
 * adds it in order. Records are added strictly in the order they were read, so the window sees the
 * same sequence as with one record at a time.
 */
export function createBatchedIntake<R>(options: BatchedIntakeOptions<R>) {
  const queue: Array<Pending<R>> = [];
  const stopping = new AbortController();
  let draining = false;

  const stopped = (): Error => new RetriableError('the stage stopped before the record was taken in; it is read again');

  /** Retriable failures are tried again (after a backoff) until `attempt` succeeds, fails for good, or the stage stops. */
  async function untilDone<T>(what: string, attempt: () => Promise<T> | T): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
    for (let n = 0; ; n += 1) {
      if (stopping.signal.aborted) return { ok: false, err: stopped() };
      try {
        return { ok: true, value: await attempt() };
      } catch (err) {
        if (!isRetriable(err)) return { ok: false, err };
        const delayMs = backoffDelayMs(n, options.backoff);
        options.log.warn({ err, attempt: n + 1, delayMs }, `${what} failed; retrying`);
        if (!(await sleepUnlessAborted(delayMs, stopping.signal))) return { ok: false, err: stopped() };
      }
    }
  }

  async function takeIn(batch: ReadonlyArray<Pending<R>>): Promise<void> {
    const all = await untilDone('resolving records', () => options.resolve(batch.map((p) => p.record)));
    const one = async (p: Pending<R>): Promise<{ ok: true; value: R } | { ok: false; err: unknown }> => {
      const single = await untilDone('resolving a record', () => options.resolve([p.record]));
      return single.ok ? { ok: true, value: single.value[0] } : single;
    };
    for (const [i, p] of batch.entries()) {
      // A batch that failed for good: each record alone, so only the one at fault is dead-lettered.
      const resolved = all.ok ? { ok: true as const, value: all.value[i] } : isRetriable(all.err) ? all : await one(p);
      if (!resolved.ok) {
        p.reject(resolved.err);
        continue;
      }
      const added = await untilDone('taking in a record', () => options.add(resolved.value, p.at));
      if (added.ok) p.resolve();
      else p.reject(added.err);
    }
  }

  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, options.maxBatch);
        await takeIn(batch);
      }
    } finally {
      draining = false;
    }
  }

  return {
    /** Queues one record (parsed, in read order); the bus runs the returned work, which ends once the record is in the window. */
    enqueue(record: R, at: RecordPosition): DeferredWork {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const settled = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Awaited through `run`; never left unhandled when the bus has stopped asking.
      settled.catch(() => undefined);
      const pending: Pending<R> = { record, at, settled, resolve, reject };
      if (stopping.signal.aborted) pending.reject(stopped());
      else {
        queue.push(pending);
        // Once the handler's turn is over: the records read meanwhile go in the same batch.
        if (queue.length === 1) setImmediate(() => void drain().catch((err: unknown) => options.log.error({ err }, 'taking records in failed')));
      }
      // Called again after a retriable failure (only when the stage stops): the same outcome.
      return { run: () => pending.settled };
    },
    /** Takes nothing more in: what is queued stays uncommitted (RetriableError), to be read again. */
    stop(): void {
      stopping.abort();
      for (const p of queue.splice(0)) p.reject(stopped());
    },
  };
}
