import { describe, expect, it } from 'vitest';
import { backoffDelayMs, sleepUnlessAborted } from './backoff.ts';

const policy = { initialDelayMs: 100, maxDelayMs: 1_000 };

describe('backoffDelayMs', () => {
  it('doubles per attempt, with half of each step jittered', () => {
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, policy, () => 0))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, policy, () => 1))).toEqual([100, 200, 400, 800]);
  });
  it('is capped however many attempts failed', () => {
    expect(backoffDelayMs(10, policy, () => 1)).toBe(1_000);
    expect(backoffDelayMs(10_000, policy, () => 0)).toBe(500);
  });
});

describe('sleepUnlessAborted', () => {
  it('returns false at once when aborted', async () => {
    const controller = new AbortController();
    const sleeping = sleepUnlessAborted(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBe(false);
  });
  it('returns true after the delay', async () => {
    await expect(sleepUnlessAborted(1, new AbortController().signal)).resolves.toBe(true);
  });
});
