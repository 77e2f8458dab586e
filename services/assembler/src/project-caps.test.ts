import { describe, expect, it } from 'vitest';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';
import { createTraceWindowHarness } from '../../../test/helpers/trace-window-harness.ts';
import { DEFAULT_PROJECT_SHARES } from '../../../shared/runtime/config/defaults.ts';

// Issue 35, item 2: the assembler stopped reading everyone's spans while it held 10,000 open traces,
// and one project's 10,000 root-less spans held them for 300 s. Open traces, root-less traces and
// held bytes are now counted per project: past its share, a project's oldest root-less traces close
// first, then its oldest, and no other project's trace closes or waits for it.

const ROOT = '1'.repeat(16);
const traceId = (i: number): string => (i + 1).toString(16).padStart(32, '0');
const long = { graceMs: 60_000, completeGraceMs: 50, maxOpenMs: 3_600_000, retainClosedMs: 60_000 };
/** A span whose parent never comes: its trace waits maxOpenMs for a root. */
const orphan = (project: string, i: number, extra = {}) => createTestSpan({ project, trace_id: traceId(i), span_id: '2'.repeat(16), parent_span_id: ROOT, ...extra });
const root = (project: string, i: number) => createTestSpan({ project, trace_id: traceId(i), span_id: ROOT });
const keyOf = (project: string, i: number): string => `${project}\u0000${traceId(i)}`;

describe("each project's share of the open traces", () => {
  it("past its root-less share, a project's oldest root-less traces close; another project's stay, and its complete trace closes on time", () => {
    const buf = createTraceWindowHarness({ ...long, projectShares: { maxRootlessTraces: 3 } });
    let offset = 0n;
    // B's root-less trace is older than all of A's: the share is A's, so it stays.
    buf.add(orphan('b', 100), 0, offset++, 0);
    for (let i = 1; i <= 6; i++) buf.add(orphan('a', i), 0, offset++, i);
    buf.add(root('b', 101), 0, offset++, 10);
    expect(buf.projectHeld('a')).toMatchObject({ open: 6, rootless: 6 });
    expect(buf.projectHeld('b')).toMatchObject({ open: 2, rootless: 1 });
    const ready = buf.takeReady(60);
    expect(ready.map((r) => [r.key, r.reason])).toEqual([
      [keyOf('b', 101), 'root-ended'],
      [keyOf('a', 1), 'cap-project-rootless'],
      [keyOf('a', 2), 'cap-project-rootless'],
      [keyOf('a', 3), 'cap-project-rootless'],
    ]);
    for (const r of ready) buf.confirm(r.key, 60);
    expect(buf.projectHeld('a')).toMatchObject({ open: 3, rootless: 3 });
    expect(buf.projectHeld('b')).toMatchObject({ open: 1, rootless: 1 });
    expect(buf.takeReady(61)).toEqual([]);
  });

  it("past its share of open traces, a project's root-less traces close before its older traces with a root", () => {
    const buf = createTraceWindowHarness({ ...long, projectShares: { maxOpenTraces: 3 } });
    let offset = 0n;
    // Roots that wait for missing children (graceMs), then root-less traces, all of project a.
    for (let i = 0; i < 3; i++) buf.add(createTestSpan({ project: 'a', trace_id: traceId(i), span_id: ROOT }), 0, offset++, i);
    for (let i = 0; i < 3; i++) buf.add(createTestSpan({ project: 'a', trace_id: traceId(i), span_id: '3'.repeat(16), parent_span_id: '4'.repeat(16) }), 0, offset++, i);
    buf.add(orphan('a', 3), 0, offset++, 3);
    buf.add(orphan('a', 4), 0, offset++, 4);
    // b at its share, not past it.
    for (let i = 0; i < 3; i++) buf.add(root('b', 10 + i), 0, offset++, 5);
    const first = buf.takeReady(6);
    expect(first.map((r) => [r.key, r.reason])).toEqual([
      [keyOf('a', 3), 'cap-project-open'],
      [keyOf('a', 4), 'cap-project-open'],
    ]);
    for (const r of first) buf.confirm(r.key, 6);
    // No root-less trace left: past its share again, its oldest closes.
    buf.add(root('a', 5), 0, offset++, 7);
    buf.add(createTestSpan({ project: 'a', trace_id: traceId(5), span_id: '3'.repeat(16), parent_span_id: '4'.repeat(16) }), 0, offset++, 7);
    expect(buf.takeReady(8).map((r) => [r.key, r.reason])).toEqual([[keyOf('a', 0), 'cap-project-open']]);
    expect(buf.projectHeld('b')).toMatchObject({ open: 3, rootless: 0 });
  });

  it("a project's held bytes: past its share its root-less traces close before its older trace with a root; another project's stay", () => {
    const big = { attributes: { pad: 'x'.repeat(20_000) } };
    const probe = createTraceWindowHarness(long);
    probe.add(orphan('a', 0, big), 0, 0n, 0);
    const oneBig = probe.openBytes();
    const buf = createTraceWindowHarness({ ...long, projectShares: { maxOpenBytes: 2 * oneBig } });
    let offset = 0n;
    // a: one big root-less trace and a small one with a root, within its share.
    buf.add(orphan('a', 0, big), 0, offset++, 0);
    buf.add(root('a', 1), 0, offset++, 0);
    // b: a small trace with a root, then three big root-less ones: past its share.
    buf.add(root('b', 8), 0, offset++, 1);
    for (let i = 0; i < 3; i++) buf.add(orphan('b', i, big), 0, offset++, 2);
    const ready = buf.takeReady(5);
    expect(ready.map((r) => [r.key, r.reason])).toEqual([
      [keyOf('b', 0), 'cap-project-bytes'],
      [keyOf('b', 1), 'cap-project-bytes'],
    ]);
    for (const r of ready) buf.confirm(r.key, 5);
    expect(buf.projectHeld('b')).toMatchObject({ open: 2, rootless: 1 });
    expect(buf.projectHeld('b').bytes).toBeLessThanOrEqual(2 * oneBig);
    expect(buf.projectHeld('a')).toMatchObject({ open: 2, rootless: 1 });
  });

  it(`the attack: one project's 10,000 root-less spans leave it ${DEFAULT_PROJECT_SHARES.maxRootlessTraces} open, and the other's trace is published on the same tick`, () => {
    const buf = createTraceWindowHarness(long);
    for (let i = 0; i < 10_000; i++) buf.add(orphan('a', i), 0, BigInt(i), 0);
    buf.add(root('b', 20_000), 0, 10_000n, 0);
    const taken = buf.takeReadyInSteps(50);
    expect(taken[0]).toMatchObject({ traceId: keyOf('b', 20_000), reason: 'root-ended' });
    expect(taken.length).toBe(1 + 10_000 - DEFAULT_PROJECT_SHARES.maxRootlessTraces);
    expect(new Set(taken.slice(1).map((t) => t.reason))).toEqual(new Set(['cap-project-rootless']));
    // The oldest first.
    expect(taken[1].traceId).toBe(keyOf('a', 0));
    for (const t of taken) buf.confirm(t.traceId, 50);
    expect([buf.openCount(), buf.rootlessCount()]).toEqual([DEFAULT_PROJECT_SHARES.maxRootlessTraces, DEFAULT_PROJECT_SHARES.maxRootlessTraces]);
    expect(buf.projectHeld('b')).toEqual({ open: 0, rootless: 0, bytes: 0 });
  });
});
