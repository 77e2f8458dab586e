/** Where a record was read: its partition and its offset there. */
export interface RecordPosition {
  partition: number;
  offset: bigint;
}

/** A group taken to be built; `load` reads its contents back in steps (a yield between two). */
export interface TakenGroup<G> {
  key: string;
  /** Why it is ready now (logged). */
  reason: string;
  /** Throws when the contents cannot be read back (a spill file): the group is released, offered again. */
  load: Iterator<void, G>;
}

/**
 * What a grouping stage keeps: records grouped by key, and which groups are ready. Pure of the
 * bus (no consumer, no commit): the stage kit (window-stage.ts) feeds it records, takes the ready
 * groups, builds and publishes them, and tells it the outcome. A group taken is held until
 * `confirm` or `release`; `takeReady` must not offer it again meanwhile.
 */
export interface Window<R, G, O = unknown> {
  /**
   * Takes in one parsed record and returns the key of the group it joined, or null when the record
   * changes nothing (a re-send of one already published: it is handled, nobody holds it). Throws a
   * PermanentError to refuse the record (it is dead-lettered with the reason), or a RetriableError
   * when it could not be held (disk full), with nothing changed.
   */
  add(record: R, at: RecordPosition, nowMs: number): string | null;
  /**
   * Where the records were read that a group took back from before it was last published (a late
   * record re-opened it whole), asked once right after the `add` that opened it. The kit holds the
   * commit below them too, so a crash before the group is published again replays it whole. Unset:
   * a window that never re-opens a group whole.
   */
  carriedInto?(key: string): readonly RecordPosition[];
  /**
   * Records the stage handled and published before it (re)started (the bus's replay: those just
   * below the committed offset), in read order: the window keeps the groups they make as it keeps
   * groups it published, so that a late record re-opens one whole, as if the stage had never
   * restarted. Nothing is published for them, and a group open or kept already is left as it is.
   * Unset: the stage asks the bus for no replay.
   */
  restore?(records: readonly R[], at: readonly RecordPosition[], nowMs: number): void;
  /** Groups ready to be built; `force` (shutdown) also takes those that would otherwise wait. */
  takeReady(nowMs: number, force: boolean): Array<TakenGroup<G>>;
  /** The group's output is durably published (none: its records were dead-lettered): it closes. */
  confirm(key: string, nowMs: number, output?: O): void;
  /** Publishing failed, or a record joined while it was built: it waits again and is offered again. */
  release(key: string): void;
  openCount(): number;
}

/** A record of a group as it is dead-lettered: its text, and where it was read when that is known. */
export interface GroupRecord {
  value: string;
  at?: RecordPosition;
  /** Its message key, when that is not the group's key (a window that keys groups by more than the record's key). */
  key?: string;
}

/** Steps that are already done: a group read back, or an output built, in one go. */
export function done<T>(value: T): Iterator<void, T> {
  return { next: () => ({ done: true, value }) };
}

/** Steps that fail at the first: a group that could not be read back (the kit releases it). */
export function failing<T>(err: unknown): Iterator<void, T> {
  return {
    next: () => {
      throw err;
    },
  };
}
