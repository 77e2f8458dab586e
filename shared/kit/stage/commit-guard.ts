import { committableBelow } from '../../adapters/bus/index.ts';
import { createOffsetHeap } from './offset-heap.ts';

/** The range of offsets holding a group's records in one partition. */
interface Range {
  partition: number;
  first: bigint;
  last: bigint;
}

interface Group {
  /** Usually one: records are keyed by their group's key, so a group's records share a partition. */
  ranges: Range[];
  /** Records added so far, and when it was taken to be built: one that came in between is not in the output. */
  records: number;
  recordsWhenTaken: number;
}

/** How long a published group's range holds the commit point below it (see the rule below). */
const PUBLISHED_RETAIN_MS = 60_000;

/**
 * When is an offset committed? This is the one place that decides it for the grouping stages.
 *
 * THE RULE. A partition is committed up to, not including, the first record of its oldest open
 * group (a group is open from its first record until its output is durably published or its
 * records are dead-lettered). That point is then moved down to the first record of any group
 * published in the last PUBLISHED_RETAIN_MS whose range [first, last] straddles it, and so on,
 * so that every group is either wholly below the commit or wholly read again after a crash: a
 * replay that re-read only a group's tail would publish that fragment in place of the whole.
 * With no group open, everything handled is committed. The consumer adds its own limits (never
 * past the last handled record, never backwards: shared/adapters/bus/commit-offset.ts).
 *
 * Published ranges are kept for PUBLISHED_RETAIN_MS only: under steady load groups overlap without
 * a gap, and a chain of them reaching back for ever would stop the commit (and, on the in-process
 * bus, fill it). Only a group open for longer than that can still be straddled and replayed as a
 * fragment after a crash.
 */
export function createCommitGuard(options: { publishedRetainMs?: number } = {}) {
  const retainMs = options.publishedRetainMs ?? PUBLISHED_RETAIN_MS;
  const groups = new Map<string, Group>();
  const heaps = new Map<number, ReturnType<typeof createOffsetHeap>>();
  /** Ranges of published groups, per partition, sorted by first. */
  const published = new Map<number, Array<{ first: bigint; last: bigint; atMs: number }>>();
  let lastPruneMs = 0;

  function heapOf(partition: number): ReturnType<typeof createOffsetHeap> {
    let heap = heaps.get(partition);
    if (!heap) heaps.set(partition, (heap = createOffsetHeap()));
    return heap;
  }

  const rangeOf = (g: Group | undefined, partition: number): Range | undefined => g?.ranges.find((r) => r.partition === partition);

  /** A record of group `key` was taken in (the window holds it). */
  function hold(key: string, partition: number, offset: bigint): void {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ranges: [], records: 0, recordsWhenTaken: 0 }));
    g.records++;
    const range = rangeOf(g, partition);
    if (!range) {
      g.ranges.push({ partition, first: offset, last: offset });
      heapOf(partition).push(offset, key);
      return;
    }
    if (offset > range.last) range.last = offset;
    if (offset < range.first) {
      range.first = offset;
      heapOf(partition).push(offset, key);
    }
  }

  function insertPublished(partition: number, first: bigint, last: bigint, nowMs: number): void {
    if (nowMs - lastPruneMs >= 1000) {
      lastPruneMs = nowMs;
      for (const [p, l] of published) published.set(p, l.filter((r) => nowMs - r.atMs < retainMs));
    }
    let list = published.get(partition);
    if (!list) published.set(partition, (list = []));
    let at = list.length;
    while (at > 0 && list[at - 1].first > first) at -= 1;
    list.splice(at, 0, { first, last, atMs: nowMs });
  }

  /** Lowest offset in `partition` still needed (see the rule); null when no group is open there. */
  function lowWaterMark(partition: number): bigint | null {
    const heap = heaps.get(partition);
    const openMin = heap ? heap.min((offset, key) => rangeOf(groups.get(key), partition)?.first === offset) : null;
    const list = published.get(partition);
    if (openMin === null) {
      // Everything handled is committed: no published group can straddle the commit.
      published.delete(partition);
      return null;
    }
    if (!list) return openMin;
    let mark = openMin;
    // Only ranges that start below the oldest open group can hold the mark lower (binary search).
    let lo = 0;
    let end = list.length;
    while (lo < end) {
      const mid = (lo + end) >> 1;
      if (list[mid].first < openMin) lo = mid + 1;
      else end = mid;
    }
    for (let i = end - 1; i >= 0; i--) if (list[i].last >= mark && list[i].first < mark) mark = list[i].first;
    // Ranges wholly below the mark never matter again: the mark only moves up.
    if (list.length > 0 && list[0].last < mark) published.set(partition, list.filter((r) => r.last >= mark));
    return mark;
  }

  return {
    hold,
    /** The group is being built from the records it has now. */
    taken(key: string): void {
      const g = groups.get(key);
      if (g) g.recordsWhenTaken = g.records;
    },
    /** A record joined the group after it was taken: what was published lacks it. */
    changedSinceTaken: (key: string): boolean => {
      const g = groups.get(key);
      return g !== undefined && g.records !== g.recordsWhenTaken;
    },
    /** The group's output is durably published (or its records dead-lettered): its records are no longer needed. */
    close(key: string, nowMs: number): void {
      const g = groups.get(key);
      if (!g) return;
      groups.delete(key);
      for (const r of g.ranges) if (r.last > r.first) insertPublished(r.partition, r.first, r.last, nowMs);
    },
    lowWaterMark,
    /** A record of the group is held (it is open here). */
    isOpen: (key: string): boolean => groups.has(key),
    /** The consumer's `committableOffset` hook. */
    committable: (partition: number, lastHandled: string): string | null => committableBelow(lowWaterMark(partition), lastHandled),
    openGroups: (): number => groups.size,
  };
}

