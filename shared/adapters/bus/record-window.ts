/**
 * The records of one partition held in memory: a contiguous run of offsets from `base` to `end`.
 * Dropping from the head is amortised O(1) (an index moves; the array is compacted only once the
 * dropped part outgrows the rest), so trimming after every send costs nothing like a shift would.
 */
export class RecordWindow<T> {
  private items: Array<T | undefined> = [];
  private head = 0;
  private first: number;

  constructor(base: number) {
    this.first = base;
  }

  /** Offset of the oldest record held (= `end` when none is). */
  get base(): number {
    return this.first;
  }

  /** Offset the next pushed record gets. */
  get end(): number {
    return this.first + this.items.length - this.head;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The record at `offset`, which must lie in [base, end). */
  get(offset: number): T {
    return this.items[this.head + offset - this.first] as T;
  }

  /** Drops every record below `offset` (nothing when it is at or below `base`; all when past `end`). */
  dropBelow(offset: number): void {
    const drop = Math.min(offset, this.end) - this.first;
    if (drop <= 0) return;
    // Cleared at once, so a dropped record is garbage now, not at the next compaction.
    this.items.fill(undefined, this.head, this.head + drop);
    this.head += drop;
    this.first += drop;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
