import { describe, expect, it } from 'vitest';
import { createCommitGuard } from './commit-guard.ts';

describe('commit guard', () => {
  it('holds a partition below the first record of its oldest open group, and commits everything once none is open', () => {
    const guard = createCommitGuard();
    guard.hold('a', 0, 5n);
    guard.hold('b', 0, 6n);
    guard.hold('a', 0, 7n);
    guard.hold('c', 1, 2n);
    expect([guard.lowWaterMark(0), guard.lowWaterMark(1), guard.lowWaterMark(2)]).toEqual([5n, 2n, null]);
    expect(guard.committable(0, '9')).toBe('4');
    guard.close('a', 0);
    // a's range [5, 7] straddles b's first record.
    expect(guard.lowWaterMark(0)).toBe(5n);
    guard.close('b', 0);
    expect(guard.lowWaterMark(0)).toBeNull();
    expect(guard.committable(0, '9')).toBe('9');
    expect(guard.openGroups()).toBe(1);
  });

  it('commits nothing while the oldest open group starts at offset 0', () => {
    const guard = createCommitGuard();
    guard.hold('a', 0, 0n);
    expect(guard.committable(0, '3')).toBeNull();
  });

  it('moves the mark down to the first record of a published group that straddles it, and so on', () => {
    const guard = createCommitGuard();
    guard.hold('a', 0, 3n);
    guard.hold('b', 0, 5n);
    guard.hold('a', 0, 8n);
    guard.hold('c', 0, 7n);
    guard.hold('b', 0, 9n);
    guard.hold('d', 0, 10n);
    guard.close('a', 0); // [3, 8]
    guard.close('b', 0); // [5, 9]
    guard.close('c', 0); // one record: never straddled
    // d opens at 10: nothing straddles it.
    expect(guard.lowWaterMark(0)).toBe(10n);
    guard.hold('e', 0, 11n);
    guard.hold('f', 0, 12n);
    guard.hold('e', 0, 14n);
    guard.close('d', 0);
    guard.close('e', 0); // [11, 14] straddles f at 12
    expect(guard.lowWaterMark(0)).toBe(11n);
  });

  it('forgets published ranges after their retention, so a chain of overlapping groups cannot stop the commit', () => {
    const guard = createCommitGuard({ publishedRetainMs: 1_000 });
    guard.hold('a', 0, 1n);
    guard.hold('b', 0, 2n);
    guard.hold('a', 0, 3n);
    guard.close('a', 0);
    expect(guard.lowWaterMark(0)).toBe(1n);
    guard.hold('c', 0, 4n);
    guard.hold('c', 0, 5n);
    guard.close('c', 1_500); // prunes ranges older than 1 s
    expect(guard.lowWaterMark(0)).toBe(2n);
  });

  it('tells whether a record joined a group after it was taken', () => {
    const guard = createCommitGuard();
    guard.hold('a', 0, 1n);
    guard.taken('a');
    expect(guard.changedSinceTaken('a')).toBe(false);
    guard.hold('a', 0, 2n);
    expect(guard.changedSinceTaken('a')).toBe(true);
    guard.taken('a');
    expect(guard.changedSinceTaken('a')).toBe(false);
  });

  it('keeps one range per partition of a group', () => {
    const guard = createCommitGuard();
    guard.hold('a', 0, 4n);
    guard.hold('a', 1, 9n);
    guard.hold('a', 0, 2n);
    expect([guard.lowWaterMark(0), guard.lowWaterMark(1)]).toEqual([2n, 9n]);
  });
});
