/** Marks no closer together than this: a lag read from them is at most this much too high. */
const MARK_EVERY_MS = 100;

/**
 * When the records of one partition were written, sparsely: one mark (offset, time) per
 * MARK_EVERY_MS of appends, so that how long the oldest unread record has waited is known even
 * when that record is on disk only. A record's time is at least its mark's: the lag read here
 * errs high by under MARK_EVERY_MS, never low. Records written before the process started are
 * marked with the time it opened the partition (their own times are on disk, not read back).
 */
export class ReadTimes {
  private offsets: number[] = [];
  private times: number[] = [];
  private head = 0;

  /** The record at `offset` was written at `timeMs` (offsets only grow). */
  mark(offset: number, timeMs: number): void {
    const last = this.times.length - 1;
    if (last >= this.head && timeMs - this.times[last] < MARK_EVERY_MS) return;
    this.offsets.push(offset);
    this.times.push(timeMs);
  }

  /** When the record at `offset` was written, at the earliest (undefined: no mark yet). */
  timeOf(offset: number): number | undefined {
    if (this.head >= this.offsets.length) return undefined;
    // The last mark at or below `offset` (binary search); below the first mark, the first.
    let lo = this.head;
    let hi = this.offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.times[lo];
  }

  /** Forgets the marks no reader needs: all below `offset` but the last one at or below it. */
  forgetBelow(offset: number): void {
    while (this.head + 1 < this.offsets.length && this.offsets[this.head + 1] <= offset) this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.offsets.length) {
      this.offsets = this.offsets.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Marks held (for tests). */
  size(): number {
    return this.offsets.length - this.head;
  }
}
