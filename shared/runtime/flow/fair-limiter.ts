import { RetriableError } from '../errors/index.ts';

/**
 * At most `concurrency` tasks at once (at least one), shared fairly between keys (projects): a
 * freed slot goes to the next key in turn that has a waiter, each key's waiters in their order
 * (round robin by task). A key with thousands waiting therefore holds back another key's next task
 * by one slot's turn, never by its whole line.
 */
export interface FairLimiter {
  /**
   * Resolves with the slot's release once `key` has its turn; rejects (RetriableError) once closed,
   * or with the signal's reason if `signal` aborts first (the waiter leaves the line).
   */
  acquire(key: string, signal?: AbortSignal): Promise<() => void>;
  /** Refuses every waiter and every later acquire (the stage stops): their work is read again. */
  close(): void;
  inFlight(): number;
  waiting(): number;
}

interface Waiter {
  go: (release: () => void) => void;
  refuse: (err: Error) => void;
}

const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a slot'));

export function createFairLimiter(concurrency: number): FairLimiter {
  const limit = Math.max(1, Math.floor(concurrency));
  let active = 0;
  let waiting = 0;
  let closed = false;
  /** Keys with waiters, in turn order: the first is served next, then goes to the back if it still waits. */
  const lines = new Map<string, Waiter[]>();

  const closedError = (): Error => new RetriableError('the stage stopped before the work had its turn; it is read again');

  function releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      handOn();
    };
  }

  /** The freed slot goes straight to the next key's first waiter: no newcomer overtakes the line. */
  function handOn(): void {
    const next = lines.entries().next();
    if (next.done) {
      active -= 1;
      return;
    }
    const [key, line] = next.value;
    const waiter = line.shift()!;
    lines.delete(key);
    if (line.length > 0) lines.set(key, line);
    waiting -= 1;
    waiter.go(releaser());
  }

  return {
    acquire(key: string, signal?: AbortSignal): Promise<() => void> {
      if (closed) return Promise.reject(closedError());
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (active < limit) {
        active += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve, reject) => {
        let line = lines.get(key);
        if (!line) lines.set(key, (line = []));
        const onAbort = (): void => {
          const mine = lines.get(key);
          const at = mine ? mine.indexOf(waiter) : -1;
          if (at < 0) return;
          mine!.splice(at, 1);
          if (mine!.length === 0) lines.delete(key);
          waiting -= 1;
          reject(abortReason(signal!));
        };
        const waiter: Waiter = {
          go: (release) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
          refuse: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        line.push(waiter);
        waiting += 1;
      });
    },
    close(): void {
      closed = true;
      const err = closedError();
      for (const line of lines.values()) for (const w of line) w.refuse(err);
      lines.clear();
      waiting = 0;
    },
    inFlight: () => active,
    waiting: () => waiting,
  };
}
