import { describe, expect, it } from 'vitest';
import { createInFlightWindow } from './in-flight-window.ts';

describe('in-flight window', () => {
  it('lets the commit advance only below the oldest record still in flight', () => {
    const w = createInFlightWindow(10);
    expect(w.committable(0, '4')).toBe('4');
    w.add(0, 5n);
    w.add(0, 6n);
    w.add(1, 0n);
    expect(w.committable(0, '6')).toBe('4');
    expect(w.committable(1, '0')).toBeNull();
    w.remove(0, 6n);
    expect(w.committable(0, '6')).toBe('4');
    w.remove(0, 5n);
    expect(w.committable(0, '6')).toBe('6');
  });

  it('holds new records back when full and lets one in per finished record', async () => {
    const w = createInFlightWindow(2);
    w.add(0, 1n);
    w.add(0, 2n);
    let admitted = 0;
    const third = w.room().then(() => (admitted += 1));
    await Promise.resolve();
    expect(admitted).toBe(0);
    w.remove(0, 1n);
    await third;
    expect(admitted).toBe(1);
  });

  it('reports when it has drained', async () => {
    const w = createInFlightWindow(2);
    w.add(0, 1n);
    let drained = false;
    const done = w.drained().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    w.remove(0, 1n);
    await done;
    expect(drained).toBe(true);
  });
});
