import { createCommitGuard } from './commit-guard.ts';
import type { RecordPosition, TakenGroup, Window } from './window.ts';

/**
 * A Window with the commit guard kept beside it: every record taken in is held by its group until
 * the group closes, and a group that got a record after it was taken is released on confirm
 * instead of closed (what was published lacks that record; it is built again with it). The window
 * stage runs its window through this; a window's own tests can too, to see what would be committed.
 */
export function guardWindow<R, G, O>(window: Window<R, G, O>) {
  const guard = createCommitGuard();
  return {
    add(record: R, at: RecordPosition, nowMs: number): string | null {
      const key = window.add(record, at, nowMs);
      // Only once the window holds it: a record it refused, could not hold or had no use for is nobody's.
      if (key === null) return null;
      if (!guard.isOpen(key)) for (const from of window.carriedInto?.(key) ?? []) guard.hold(key, from.partition, from.offset);
      guard.hold(key, at.partition, at.offset);
      return key;
    },
    takeReady(nowMs: number, force: boolean): Array<TakenGroup<G>> {
      const taken = window.takeReady(nowMs, force);
      for (const t of taken) guard.taken(t.key);
      return taken;
    },
    /** The group's output is out (none: its records were dead-lettered). False when it stays open for a record that came meanwhile. */
    confirm(key: string, nowMs: number, output?: O): boolean {
      if (guard.changedSinceTaken(key)) {
        window.release(key);
        return false;
      }
      window.confirm(key, nowMs, output);
      guard.close(key, nowMs);
      return true;
    },
    /** Nothing is held for restored records: they lie below the commit already. */
    restore: window.restore ? (records: readonly R[], at: readonly RecordPosition[], nowMs: number): void => window.restore!(records, at, nowMs) : undefined,
    release: (key: string): void => window.release(key),
    lowWaterMark: (partition: number): bigint | null => guard.lowWaterMark(partition),
    /** The consumer's `committableOffset` hook. */
    committable: (partition: number, lastHandled: string): string | null => guard.committable(partition, lastHandled),
    openCount: (): number => window.openCount(),
  };
}

