import { describe, expect, it } from 'vitest';
import { createTimeSlicer, runAtOnce, runInSlices, yieldToEventLoop } from './time-slicer.ts';

function* counting(n: number, clock: { t: number }, msPerStep: number, seen: number[]): Generator<void, number> {
  for (let i = 0; i < n; i++) {
    seen.push(i);
    clock.t += msPerStep;
    yield;
  }
  return n * 10;
}

describe('time slicer', () => {
  it('yields to the event loop only once a slice has run its length, then starts a new slice', async () => {
    const clock = { t: 0 };
    const slicer = createTimeSlicer(20, () => clock.t);
    const events: string[] = [];
    setImmediate(() => events.push('other work'));
    clock.t = 19;
    expect(slicer.due()).toBe(false);
    await slicer.pause();
    events.push('not due');
    clock.t = 20;
    expect(slicer.due()).toBe(true);
    await slicer.pause();
    events.push('after the yield');
    expect(events).toEqual(['not due', 'other work', 'after the yield']);
    expect(slicer.due()).toBe(false);
    clock.t = 45;
    slicer.restart();
    clock.t = 64;
    expect(slicer.due()).toBe(false);
  });

  it('runs a generator in slices to the same result and steps as in one pass, letting other work in between', async () => {
    const clock = { t: 0 };
    const seenSliced: number[] = [];
    const seenAtOnce: number[] = [];
    let otherRuns = 0;
    const other = (): void => {
      otherRuns++;
      if (otherRuns < 100) setImmediate(other);
    };
    setImmediate(other);
    const sliced = await runInSlices(counting(10, clock, 5, seenSliced), 10, () => clock.t);
    expect(sliced).toBe(100);
    expect(runAtOnce(counting(10, { t: 0 }, 5, seenAtOnce))).toBe(100);
    expect(seenSliced).toEqual(seenAtOnce);
    // 10 steps of 5 ms with 10 ms slices: a yield after every second step.
    expect(otherRuns).toBe(5);
  });

  it('yieldToEventLoop resolves after work already queued for the event loop', async () => {
    const events: string[] = [];
    setImmediate(() => events.push('queued first'));
    await yieldToEventLoop();
    events.push('resumed');
    expect(events).toEqual(['queued first', 'resumed']);
  });
});
