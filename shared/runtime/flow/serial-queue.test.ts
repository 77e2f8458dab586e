import { describe, expect, it } from 'vitest';
import { createKeyedSerialQueue, createSerialQueue } from './serial-queue.ts';

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('serial queue', () => {
  it('runs tasks one at a time in queue order; a failure is its caller\'s and the next task still runs', async () => {
    const q = createSerialQueue();
    const events: string[] = [];
    const first = gate();
    const a = q.run(async () => {
      events.push('a starts');
      await first.promise;
      events.push('a ends');
      return 'a';
    });
    const b = q.run(() => {
      events.push('b runs');
      return Promise.reject(new Error('b failed'));
    });
    const c = q.run(() => {
      events.push('c runs');
      return Promise.resolve('c');
    });
    await Promise.resolve();
    expect(events).toEqual(['a starts']);
    first.open();
    expect(await a).toBe('a');
    await expect(b).rejects.toThrow('b failed');
    expect(await c).toBe('c');
    expect(events).toEqual(['a starts', 'a ends', 'b runs', 'c runs']);
  });

  it('idle waits for tasks queued while it waits', async () => {
    const q = createSerialQueue();
    const events: string[] = [];
    const first = gate();
    void q.run(async () => {
      await first.promise;
      events.push('first');
      void q.run(() => {
        events.push('queued while idle waited');
        return Promise.resolve();
      });
    });
    const idle = q.idle().then(() => events.push('idle'));
    first.open();
    await idle;
    expect(events).toEqual(['first', 'queued while idle waited', 'idle']);
  });
});

describe('keyed serial queue', () => {
  it('orders turns of one key, runs other keys side by side, and forgets a key once its turns end', async () => {
    const q = createKeyedSerialQueue();
    const events: string[] = [];
    const t1 = q.turn('u1');
    const t2 = q.turn('u1');
    const other = q.turn('u2');
    void t2.ready.then(() => events.push('u1 second ready'));
    void other.ready.then(() => events.push('u2 ready'));
    await t1.ready;
    await other.ready;
    await Promise.resolve();
    expect(events).toEqual(['u2 ready']);
    expect(q.size()).toBe(2);
    t1.release();
    await t2.ready;
    expect(events).toEqual(['u2 ready', 'u1 second ready']);
    t2.release();
    other.release();
    other.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(q.size()).toBe(0);
  });

  it('run holds the key\'s turn for the task, through its failure', async () => {
    const q = createKeyedSerialQueue();
    const events: string[] = [];
    const first = gate();
    const a = q.run('k', async () => {
      await first.promise;
      events.push('a');
      throw new Error('a failed');
    });
    const b = q.run('k', () => {
      events.push('b');
      return Promise.resolve(2);
    });
    first.open();
    await expect(a).rejects.toThrow('a failed');
    expect(await b).toBe(2);
    expect(events).toEqual(['a', 'b']);
  });
});
