import { describe, expect, it } from 'vitest';
import { createFailureBreaker } from './failure-breaker.ts';

describe('failure breaker', () => {
  it('marks a key suspect on its first failure, pauses it after three in a row until the cool-down ends, and clears on a success', () => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const b = createFailureBreaker({ failures: 3, cooldownMs: 30_000, now: () => now });
    expect([b.suspect('k'), b.refusal('k')]).toEqual([false, null]);
    b.record('k', { ok: false, reason: 'timed out after 2000 ms' });
    b.record('k', { ok: false, reason: 'timed out after 2000 ms' });
    expect([b.suspect('k'), b.refusal('k')]).toEqual([true, null]);
    b.record('k', { ok: false, reason: 'timed out after 2000 ms' });
    expect(b.refusal('k')).toBe('paused until 2026-11-23T12:00:30.000Z: its last 3 evaluations each cost a sandbox process (the last: timed out after 2000 ms)');
    expect(b.refusal('other')).toBeNull();
    now += 30_000;
    // After the cool-down one more is tried; another failure pauses it again at once.
    expect(b.refusal('k')).toBeNull();
    b.record('k', { ok: false, reason: 'the process ended (SIGSEGV)' });
    expect(b.refusal('k')).toBe('paused until 2026-11-23T12:01:00.000Z: its last 4 evaluations each cost a sandbox process (the last: the process ended (SIGSEGV))');
    now += 30_000;
    b.record('k', { ok: true });
    expect([b.suspect('k'), b.refusal('k')]).toEqual([false, null]);
  });
});
