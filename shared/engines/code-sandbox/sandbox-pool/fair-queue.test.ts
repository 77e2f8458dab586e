import { describe, expect, it } from 'vitest';
import { createFairQueue } from './fair-queue.ts';

describe('fair queue', () => {
  it('serves keys in rotation, each in its own order, so a long queue of one key does not go first', () => {
    const q = createFairQueue<string>();
    for (let i = 1; i <= 4; i++) q.push('hostile', `h${i}`);
    q.push('a', 'a1');
    q.push('b', 'b1');
    q.push('a', 'a2');
    const order: string[] = [];
    for (let next = q.take(() => true); next; next = q.take(() => true)) order.push(next.job);
    expect(order).toEqual(['h1', 'a1', 'b1', 'h2', 'a2', 'h3', 'h4']);
    expect(q.size()).toBe(0);
  });

  it('skips keys that may not run now, and drains a key or everything', () => {
    const q = createFairQueue<string>();
    q.push('busy', 'x1');
    q.push('busy', 'x2');
    q.push('free', 'f1');
    expect(q.take((key) => key !== 'busy')).toEqual({ key: 'free', job: 'f1' });
    expect(q.take((key) => key !== 'busy')).toBeUndefined();
    q.push('other', 'o1');
    expect(q.drainKey('busy')).toEqual(['x1', 'x2']);
    expect(q.size()).toBe(1);
    expect(q.drain()).toEqual(['o1']);
    expect(q.size()).toBe(0);
  });
});
