import { describe, expect, it } from 'vitest';
import { createThrottle } from './throttle.ts';

describe('failed-auth throttle', () => {
  it('blocks a subject past its failures until the window ends, and forgets the oldest past its bound', () => {
    let t = 0;
    const throttle = createThrottle({ maxFailures: 2, windowMs: 10_000, maxTracked: 2, now: () => t });
    throttle.failed('a');
    expect(throttle.retryAfterMs('a')).toBe(0);
    t = 4_000;
    throttle.failed('a');
    expect([throttle.retryAfterMs('a'), throttle.retryAfterMs('b')]).toEqual([6_000, 0]);
    t = 10_000;
    expect(throttle.retryAfterMs('a')).toBe(0);
    throttle.failed('a');
    throttle.failed('a');
    throttle.failed('b');
    throttle.failed('c');
    // 'a' was the oldest of three: forgotten, so memory stays bounded.
    expect(throttle.retryAfterMs('a')).toBe(0);
  });
});
