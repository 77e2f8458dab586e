/**
 * Tasks run one at a time in the order they were queued: a task starts once every earlier one
 * has settled, whether it succeeded or failed. A task's result or error is its caller's alone;
 * it does not stop the queue.
 */
export interface SerialQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Resolves once every task queued so far, and every task queued while waiting, has settled. */
  idle(): Promise<void>;
}

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const mine = tail.then(task);
      tail = mine.catch(() => undefined);
      return mine;
    },
    async idle() {
      for (let seen = tail; ; seen = tail) {
        await seen;
        if (seen === tail) return;
      }
    },
  };
}

/** A place in a key's line whose end is signalled by its holder (work that outlives one call). */
interface Turn {
  /** Resolves once every earlier turn of the key has been released. */
  ready: Promise<void>;
  /** Ends this turn: the key's next turn may begin. Idempotent. */
  release: () => void;
}

/**
 * One serial line per key; different keys run side by side. A key's entry is dropped once its
 * last turn ends, so keys that come and go do not accumulate.
 */
export interface KeyedSerialQueue {
  turn(key: string): Turn;
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Keys with a turn not yet released. */
  size(): number;
}

export function createKeyedSerialQueue(): KeyedSerialQueue {
  const tails = new Map<string, Promise<void>>();
  function turn(key: string): Turn {
    const ready = tails.get(key) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    tails.set(key, mine);
    void mine.then(() => {
      if (tails.get(key) === mine) tails.delete(key);
    });
    return { ready, release };
  }
  return {
    turn,
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const t = turn(key);
      try {
        await t.ready;
        return await task();
      } finally {
        t.release();
      }
    },
    size: () => tails.size,
  };
}
