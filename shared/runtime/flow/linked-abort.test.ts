import { describe, expect, it } from 'vitest';
import { linkAbort } from './linked-abort.ts';

/** A parent signal that counts its listeners, to see that a released link leaves none behind. */
function countingParent(): { controller: AbortController; listeners: () => number } {
  const controller = new AbortController();
  let n = 0;
  const add = controller.signal.addEventListener.bind(controller.signal);
  const remove = controller.signal.removeEventListener.bind(controller.signal);
  controller.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
    n += 1;
    add(...args);
  };
  controller.signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
    n -= 1;
    remove(...args);
  };
  return { controller, listeners: () => n };
}

describe('linkAbort', () => {
  it('aborts when any parent aborts, with that parent\'s reason, and unhooks from the others', () => {
    const a = countingParent();
    const b = countingParent();
    const link = linkAbort(a.controller.signal, b.controller.signal);
    expect(link.signal.aborted).toBe(false);
    expect([a.listeners(), b.listeners()]).toEqual([1, 1]);
    b.controller.abort('stopping');
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('stopping');
    expect([a.listeners(), b.listeners()]).toEqual([0, 0]);
  });

  it('abort() aborts the child only, and unhooks it', () => {
    const a = countingParent();
    const link = linkAbort(a.controller.signal);
    link.abort('lost the partition');
    expect(link.signal.reason).toBe('lost the partition');
    expect(a.controller.signal.aborted).toBe(false);
    expect(a.listeners()).toBe(0);
  });

  it('starts aborted when a parent already is, hooking nothing', () => {
    const a = countingParent();
    const b = countingParent();
    b.controller.abort('already');
    const link = linkAbort(a.controller.signal, b.controller.signal);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe('already');
    expect([a.listeners(), b.listeners()]).toEqual([0, 0]);
  });

  it('after release a parent\'s abort no longer reaches it, and a long-lived parent keeps no listener per link', () => {
    const a = countingParent();
    for (let i = 0; i < 1000; i += 1) linkAbort(a.controller.signal).release();
    expect(a.listeners()).toBe(0);
    const link = linkAbort(a.controller.signal);
    link.release();
    a.controller.abort('stopping');
    expect(link.signal.aborted).toBe(false);
  });
});
