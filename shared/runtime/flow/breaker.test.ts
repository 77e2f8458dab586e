import { describe, expect, it } from 'vitest';
import { createBreaker, createKeyedBreaker, type BreakerState } from './breaker.ts';

describe('breaker', () => {
  it('opens after the threshold of failures in a row, half-opens after the cool-down for one trial, and closes on its success', () => {
    let now = 1_000;
    const changes: Array<[BreakerState, string]> = [];
    const b = createBreaker({ failureThreshold: 3, cooldownMs: 5_000, now: () => now, onChange: (s, r) => changes.push([s, r]) });
    expect(b.admit()).toBeNull();
    b.failure('e1');
    b.failure('e2');
    expect([b.state(), b.failures(), b.admit()]).toEqual(['closed', 2, null]);
    b.failure('e3');
    now += 2_000;
    expect(b.admit()).toEqual({ state: 'open', retryInMs: 3_000, failures: 3, lastReason: 'e3' });
    expect(b.blocked()).toEqual({ state: 'open', retryInMs: 3_000, failures: 3, lastReason: 'e3' });
    now += 3_000;
    expect(b.admit()).toBeNull();
    expect(b.state()).toBe('half-open');
    // One trial at a time.
    expect(b.admit()).toEqual({ state: 'half-open', retryInMs: 1_000, failures: 3, lastReason: 'e3' });
    b.success();
    expect([b.state(), b.failures(), b.counts()]).toEqual(['closed', 0, { opened: 1, closed: 1 }]);
    expect(changes).toEqual([
      ['open', 'e3'],
      ['half-open', 'cooldown over'],
      ['closed', 'a call succeeded'],
    ]);
  });

  it('re-opens at once when the trial fails; release frees the trial slot of a call that never ran', () => {
    let now = 0;
    const b = createBreaker({ failureThreshold: 2, cooldownMs: 100, now: () => now });
    b.failure('a');
    b.failure('b');
    now = 100;
    expect(b.admit()).toBeNull();
    b.release();
    expect(b.admit()).toBeNull();
    b.failure('trial failed');
    expect(b.admit()).toEqual({ state: 'open', retryInMs: 100, failures: 3, lastReason: 'trial failed' });
    expect(b.counts()).toEqual({ opened: 2, closed: 0 });
  });

  it('blocked reserves no trial, and a failure while open restarts the cool-down', () => {
    let now = 0;
    const b = createBreaker({ failureThreshold: 1, cooldownMs: 100, now: () => now });
    b.failure('a');
    now = 60;
    b.failure('b');
    now = 150;
    expect(b.blocked()).toEqual({ state: 'open', retryInMs: 10, failures: 2, lastReason: 'b' });
    now = 160;
    expect([b.blocked(), b.blocked(), b.state()]).toEqual([null, null, 'half-open']);
  });
});

describe('keyed breaker', () => {
  it('keeps a breaker per failing key, forgets a key on success, and forgets the oldest past maxKeys', () => {
    let now = 0;
    const b = createKeyedBreaker({ failureThreshold: 2, cooldownMs: 1_000, now: () => now, maxKeys: 2 });
    b.failure('k', 'x');
    expect([b.failing('k'), b.blocked('k'), b.failing('other')]).toEqual([true, null, false]);
    b.failure('k', 'y');
    expect(b.blocked('k')).toEqual({ state: 'open', retryInMs: 1_000, failures: 2, lastReason: 'y' });
    expect(b.blocked('other')).toBeNull();
    now = 1_000;
    expect(b.blocked('k')).toBeNull();
    b.failure('k', 'z');
    expect(b.blocked('k')).toEqual({ state: 'open', retryInMs: 1_000, failures: 3, lastReason: 'z' });
    b.success('k');
    expect([b.failing('k'), b.blocked('k')]).toEqual([false, null]);
    b.failure('a', 'x');
    b.failure('b', 'x');
    b.failure('c', 'x');
    expect([b.failing('a'), b.failing('b'), b.failing('c')]).toEqual([false, true, true]);
  });
});
