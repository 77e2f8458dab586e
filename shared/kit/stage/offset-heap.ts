/**
 * A min-heap of (offset, group key): a partition's low-water mark in O(log n)
 * instead of a scan of every open group on each commit decision. Entries are not removed when a
 * group closes; `min` drops stale ones lazily (the caller says which entries still hold).
 */
export function createOffsetHeap() {
  const heap: Array<[bigint, string]> = [];

  const less = (i: number, j: number): boolean => heap[i][0] < heap[j][0];
  function swap(i: number, j: number): void {
    const t = heap[i];
    heap[i] = heap[j]!;
    heap[j] = t;
  }
  function up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(i, p)) return;
      swap(i, p);
      i = p;
    }
  }
  function down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(l, m)) m = l;
      if (r < heap.length && less(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  }
  function pop(): void {
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      down(0);
    }
  }

  return {
    push(offset: bigint, key: string): void {
      heap.push([offset, key]);
      up(heap.length - 1);
    },
    /** The lowest offset whose entry `holds` (others are dropped for good), or null. */
    min(holds: (offset: bigint, key: string) => boolean): bigint | null {
      while (heap.length > 0) {
        const [offset, key] = heap[0];
        if (holds(offset, key)) return offset;
        pop();
      }
      return null;
    },
    size: () => heap.length,
  };
}
