import { describe, expect, it } from 'vitest';
import { createProjectShares } from './project-shares.ts';

// Issue 35, item 2: the collector counts each project's traces still waiting for a root span, as
// the assembler will hold them, and refuses (429) an export that would take a project past its
// share, before any of it reaches the bus.

const id = (i: number): string => (i + 1).toString(16).padStart(32, '0');
/** An export's records: [trace, can end it (root or entry span), bytes]. */
const exportOf = (records: Array<[number, boolean, number]>) => ({
  messages: records.map(([trace, , bytes]) => ({ key: id(trace), value: 'x'.repeat(bytes) })),
  ends: records.map(([, ends]) => ends),
});
const orphans = (from: number, n: number, bytes = 10) => exportOf(Array.from({ length: n }, (_, i): [number, boolean, number] => [from + i, false, bytes]));

describe("the collector's count of each project's traces waiting for a root", () => {
  it('refuses an export that would take the project past its share, whole; another project is not affected', () => {
    const shares = createProjectShares({ maxRootlessTraces: 3, maxRootlessBytes: 1_000_000, maxOpenMs: 300_000 }, () => 0);
    expect(shares.admit('a', orphans(0, 2))).toBeNull();
    expect(shares.admit('a', orphans(2, 2))).toMatch(/^project "a" is over its share of traces waiting for a root span: this export would make 4 \(share 3, TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES\)/);
    // Nothing of the refused export was counted.
    expect(shares.held('a')).toEqual({ traces: 2, bytes: 20 });
    expect(shares.admit('a', orphans(2, 1))).toBeNull();
    expect(shares.admit('a', orphans(3, 1))).not.toBeNull();
    expect(shares.admit('b', orphans(0, 3))).toBeNull();
    // One export alone past the share: refused, whatever the project held.
    expect(shares.admit('c', orphans(0, 10_000))).toMatch(/would make 10000 \(share 3/);
    expect(shares.held('c')).toEqual({ traces: 0, bytes: 0 });
  });

  it('more spans of traces it counts, and roots, always pass; a root or an entry span takes its trace off the count', () => {
    const shares = createProjectShares({ maxRootlessTraces: 2, maxRootlessBytes: 1_000_000, maxOpenMs: 300_000 }, () => 0);
    expect(shares.admit('a', orphans(0, 2))).toBeNull();
    expect(shares.admit('a', orphans(0, 2, 5))).toBeNull();
    expect(shares.held('a')).toEqual({ traces: 2, bytes: 30 });
    // A new trace with its root in the same export adds nothing.
    expect(shares.admit('a', exportOf([[5, false, 10], [5, true, 10]]))).toBeNull();
    // Trace 0's root comes: one new root-less trace fits in the same export.
    expect(shares.admit('a', exportOf([[0, true, 10], [6, false, 7]]))).toBeNull();
    expect(shares.held('a')).toEqual({ traces: 2, bytes: 22 });
    // Log records (no `ends`) open traces too.
    expect(shares.admit('a', { messages: [{ key: id(7), value: '{}' }] })).not.toBeNull();
    // But not those of a trace whose root passed: the assembler re-opens it with its root.
    expect(shares.admit('a', { messages: [{ key: id(5), value: '{}' }, { key: id(0), value: '{}' }] })).toBeNull();
    expect(shares.held('a')).toEqual({ traces: 2, bytes: 22 });
  });

  it('a trace leaves the count once the assembler has closed it for want of a root (max open time)', () => {
    let now = 1_000;
    const shares = createProjectShares({ maxRootlessTraces: 2, maxRootlessBytes: 1_000_000, maxOpenMs: 300_000 }, () => now);
    expect(shares.admit('a', orphans(0, 1))).toBeNull();
    now = 2_000;
    expect(shares.admit('a', orphans(1, 1))).toBeNull();
    expect(shares.admit('a', orphans(2, 1))).not.toBeNull();
    now = 1_000 + 300_000;
    expect(shares.held('a')).toEqual({ traces: 1, bytes: 10 });
    expect(shares.admit('a', orphans(2, 1))).toBeNull();
    now = 2_000 + 300_000 + 300_000;
    expect(shares.held('a')).toEqual({ traces: 0, bytes: 0 });
    // A root remembered as long as the assembler keeps its closed trace, then forgotten.
    expect(shares.admit('a', exportOf([[9, true, 10]]))).toBeNull();
    expect(shares.admit('a', orphans(9, 1))).toBeNull();
    expect(shares.held('a')).toEqual({ traces: 0, bytes: 0 });
    now += 300_000;
    expect(shares.admit('a', orphans(9, 1))).toBeNull();
    expect(shares.held('a')).toEqual({ traces: 1, bytes: 10 });
  });

  it('bytes: an export that would take the bytes of root-less traces past the share is refused', () => {
    const shares = createProjectShares({ maxRootlessTraces: 100, maxRootlessBytes: 1_000, maxOpenMs: 300_000 }, () => 0);
    expect(shares.admit('a', orphans(0, 1, 900))).toBeNull();
    expect(shares.admit('a', orphans(0, 1, 101))).toMatch(/over its share of bytes held for traces waiting for a root span: this export would make 1001 \(share 1000, TRACECHECK_PROJECT_MAX_OPEN_BYTES\)/);
    // Its root frees them.
    expect(shares.admit('a', exportOf([[0, true, 50]]))).toBeNull();
    expect(shares.admit('a', orphans(1, 1, 1_000))).toBeNull();
  });
});
