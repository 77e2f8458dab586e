import { describe, expect, it } from 'vitest';
import { createLimiter, forEachLimited } from './limiter.ts';

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('limiter', () => {
  it('runs at most `concurrency` tasks at once, the rest in order as slots free, and is idle after the last', async () => {
    const l = createLimiter(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      l.run(async () => {
        started.push(i);
        await g.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect([started, l.inFlight(), l.waiting()]).toEqual([[0, 1], 2, 2]);
    let idle = false;
    void l.idle().then(() => (idle = true));
    gates[1].open();
    expect(await runs[1]).toBe(1);
    await Promise.resolve();
    expect([started, l.inFlight(), l.waiting()]).toEqual([[0, 1, 2], 2, 1]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    await Promise.resolve();
    expect([started, l.inFlight(), l.waiting(), idle]).toEqual([[0, 1, 2, 3], 0, 0, true]);
  });

  it('a waiter whose signal aborts leaves the line with the signal\'s reason and its task never runs', async () => {
    const l = createLimiter(1);
    const first = gate();
    const a = l.run(() => first.promise);
    const controller = new AbortController();
    let ran = false;
    const b = l.run(() => {
      ran = true;
      return Promise.resolve();
    }, controller.signal);
    expect(l.waiting()).toBe(1);
    controller.abort(new Error('deadline'));
    await expect(b).rejects.toThrow('deadline');
    expect(l.waiting()).toBe(0);
    const aborted = new AbortController();
    aborted.abort('not an error');
    await expect(l.run(() => Promise.resolve(1), aborted.signal)).rejects.toThrow('aborted while waiting for a slot');
    first.open();
    await a;
    expect([ran, l.inFlight()]).toEqual([false, 0]);
  });

  it('a failing task frees its slot and its error is its caller\'s', async () => {
    const l = createLimiter(1);
    await expect(l.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await l.run(() => Promise.resolve('next'))).toBe('next');
    expect(l.inFlight()).toBe(0);
  });
});

describe('forEachLimited', () => {
  it('runs every item at most `concurrency` at once, started in item order, with its index', async () => {
    let running = 0;
    let most = 0;
    const started: Array<[string, number]> = [];
    await forEachLimited(['a', 'b', 'c', 'd', 'e'], 2, async (item, i) => {
      started.push([item, i]);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
    });
    expect(started).toEqual([['a', 0], ['b', 1], ['c', 2], ['d', 3], ['e', 4]]);
    expect(most).toBe(2);
  });

  it('starts no item after a failure and rejects with it; a concurrency below one runs one at a time', async () => {
    const seen: number[] = [];
    await expect(
      forEachLimited([1, 2, 3], 0, (n) => {
        seen.push(n);
        return n === 2 ? Promise.reject(new Error('two failed')) : Promise.resolve();
      }),
    ).rejects.toThrow('two failed');
    expect(seen).toEqual([1, 2]);
  });
});
