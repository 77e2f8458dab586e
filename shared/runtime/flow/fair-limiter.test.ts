import { describe, expect, it } from 'vitest';
import { RetriableError } from '../errors/index.ts';
import { createFairLimiter } from './fair-limiter.ts';

describe('fair limiter', () => {
  it("serves keys in turn: a key's long line holds another key's task back by one slot, not by the line", async () => {
    const l = createFairLimiter(1);
    const order: string[] = [];
    const releases: Array<() => void> = [];
    const take = (key: string, n: number): Promise<void> =>
      l.acquire(key).then((release) => {
        order.push(`${key}${n}`);
        releases.push(release);
      });
    const all = [take('a', 0), take('a', 1), take('a', 2), take('a', 3), take('b', 0), take('b', 1), take('c', 0)];
    await all[0];
    expect([l.inFlight(), l.waiting()]).toEqual([1, 6]);
    // One slot frees at a time: the next key in turn gets it.
    for (let i = 0; i < 6; i++) {
      releases[i]();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
    expect(order).toEqual(['a0', 'a1', 'b0', 'c0', 'a2', 'b1', 'a3']);
    releases[6]();
    // A release called twice frees one slot only.
    releases[6]();
    expect([l.inFlight(), l.waiting()]).toEqual([0, 0]);
  });

  it('refuses waiters and later acquires once closed, as retriable (the work is read again)', async () => {
    const l = createFairLimiter(1);
    const release = await l.acquire('a');
    const waiter = l.acquire('b');
    l.close();
    await expect(waiter).rejects.toBeInstanceOf(RetriableError);
    await expect(l.acquire('c')).rejects.toBeInstanceOf(RetriableError);
    release();
    expect([l.inFlight(), l.waiting()]).toEqual([0, 0]);
  });

  it("a waiter whose signal aborts leaves its key's line with the signal's reason; the slot goes to the next", async () => {
    const l = createFairLimiter(1);
    const release = await l.acquire('a');
    const controller = new AbortController();
    const gone = l.acquire('b', controller.signal);
    const next = l.acquire('c');
    controller.abort(new Error('deadline'));
    await expect(gone).rejects.toThrow('deadline');
    expect(l.waiting()).toBe(1);
    release();
    (await next)();
    expect([l.inFlight(), l.waiting()]).toEqual([0, 0]);
  });
});
