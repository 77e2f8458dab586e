import { describe, expect, it } from 'vitest';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { DEFAULT_OPEN_CAPS } from './open-caps.ts';

// Issue 23: root-less traces had no cap on their number (200,000 took RSS to 2.4 GB when they
// expired), and open traces none by count or bytes. Past a cap the oldest close at once, as they are.

const ROOT = '1'.repeat(16);
const traceId = (i: number): string => (i + 1).toString(16).padStart(32, '0');
const long = { graceMs: 60_000, maxOpenMs: 3_600_000, retainClosedMs: 60_000 };
/** A span whose parent never comes: its trace waits maxOpenMs for a root. */
const orphan = (i: number, extra = {}) => createTestSpan({ trace_id: traceId(i), span_id: '2'.repeat(16), parent_span_id: ROOT, ...extra });
const root = (i: number) => createTestSpan({ trace_id: traceId(i), span_id: ROOT });

describe('caps on open traces: the oldest close first', () => {
  it('root-less traces: past the cap the oldest root-less ones close, traces with a root stay', () => {
    const buf = createTraceWindowHarness({ ...long, maxRootlessTraces: 3 });
    buf.add(root(0), 0, 0n, 0);
    for (let i = 1; i <= 5; i++) buf.add(orphan(i), 0, BigInt(i), i);
    expect(buf.rootlessCount()).toBe(5);
    const ready = buf.takeReady(10);
    expect(ready.map((r) => [r.traceId, r.reason, r.spans.length])).toEqual([
      [traceId(1), 'cap-rootless', 1],
      [traceId(2), 'cap-rootless', 1],
    ]);
    for (const r of ready) buf.confirm(r.traceId, 10);
    expect([buf.openCount(), buf.rootlessCount()]).toEqual([4, 3]);
    expect(buf.takeReady(11)).toEqual([]);
    // A root arriving takes its trace off the root-less count.
    buf.add(root(3), 0, 9n, 12);
    expect(buf.rootlessCount()).toBe(2);
  });

  it('open traces by number', () => {
    const buf = createTraceWindowHarness({ ...long, maxOpenTraces: 2 });
    for (let i = 0; i < 4; i++) buf.add(root(i), 0, BigInt(i), i);
    expect(buf.takeReady(10).map((r) => [r.traceId, r.reason])).toEqual([
      [traceId(0), 'cap-open'],
      [traceId(1), 'cap-open'],
    ]);
  });

  it('open traces by the bytes of their records', () => {
    const big = { attributes: { pad: 'x'.repeat(20_000) } };
    const probe = createTraceWindowHarness(long);
    probe.add(root(0), 0, 0n, 0);
    const oneSpan = probe.openBytes();
    const buf = createTraceWindowHarness({ ...long, maxOpenBytes: 3 * oneSpan });
    for (let i = 0; i < 3; i++) buf.add(root(i), 0, BigInt(i), i);
    expect(buf.takeReady(10)).toEqual([]);
    buf.add(orphan(1, big), 0, 10n, 11);
    expect(buf.openBytes()).toBeGreaterThan(3 * oneSpan);
    expect(buf.takeReady(12).map((r) => [r.traceId, r.reason])).toEqual([
      [traceId(0), 'cap-bytes'],
      [traceId(1), 'cap-bytes'],
    ]);
  });

  it('a trace re-opened by a late span counts the bytes it held again, and a shutdown flush ignores the caps', () => {
    const buf = createTraceWindowHarness({ ...long, graceMs: 0, completeGraceMs: 0, maxOpenTraces: 1 });
    buf.add(root(0), 0, 0n, 0);
    const held = buf.openBytes();
    for (const r of buf.takeReady(1)) buf.confirm(r.traceId, 1);
    expect([buf.openCount(), buf.openBytes()]).toEqual([0, 0]);
    buf.add(orphan(0), 0, 1n, 2);
    expect(buf.openBytes()).toBeGreaterThan(held);
    buf.add(orphan(1), 0, 2n, 2);
    buf.add(orphan(2), 0, 3n, 2);
    expect(buf.takeReady(2, true).map((r) => [r.traceId, r.reason])).toEqual([[traceId(0), 'shutdown']]);
  });

  it(`the attack, scaled: 20,000 root-less traces leave at most ${DEFAULT_OPEN_CAPS.maxRootlessTraces} open after a tick`, () => {
    // One project's share would act first (project-caps.test.ts): here the cap on all.
    const buf = createTraceWindowHarness({ ...long, projectShares: { maxRootlessTraces: 20_000, maxOpenTraces: 20_000 } });
    for (let i = 0; i < 20_000; i++) buf.add(orphan(i), 0, BigInt(i), 0);
    const taken = buf.takeReadyInSteps(1);
    expect(taken.length).toBe(20_000 - DEFAULT_OPEN_CAPS.maxRootlessTraces);
    expect(new Set(taken.map((t) => t.reason))).toEqual(new Set(['cap-rootless']));
    expect(taken[0].traceId).toBe(traceId(0));
    for (const t of taken) buf.confirm(t.traceId, 1);
    expect([buf.openCount(), buf.rootlessCount()]).toEqual([DEFAULT_OPEN_CAPS.maxRootlessTraces, DEFAULT_OPEN_CAPS.maxRootlessTraces]);
  });
});
