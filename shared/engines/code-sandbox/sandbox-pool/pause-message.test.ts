import { describe, expect, it } from 'vitest';
import { createKeyedBreaker } from '../../../runtime/flow/index.ts';
import { pauseMessage } from './pause-message.ts';

describe('pause message', () => {
  it('names when the pause ends, the streak and its last failure, after three in a row and again when the trial after the cool-down fails', () => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 0);
    const b = createKeyedBreaker({ failureThreshold: 3, cooldownMs: 30_000, now: () => now });
    for (let i = 0; i < 3; i++) b.failure('k', 'timed out after 2000 ms');
    now += 10_000;
    expect(pauseMessage(b.blocked('k')!, now)).toBe('paused until 2026-11-23T12:00:30.000Z: its last 3 evaluations each cost a sandbox process (the last: timed out after 2000 ms)');
    now += 20_000;
    expect(b.blocked('k')).toBeNull();
    b.failure('k', 'the process ended (SIGSEGV)');
    expect(pauseMessage(b.blocked('k')!, now)).toBe('paused until 2026-11-23T12:01:00.000Z: its last 4 evaluations each cost a sandbox process (the last: the process ended (SIGSEGV))');
  });
});
