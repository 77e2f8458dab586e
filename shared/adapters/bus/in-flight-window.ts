/**
 * Records being worked on after their handler returned, per partition, with a capacity in records
 * and, optionally, in bytes (their values' characters; one record is always let in). The
 * consumer may commit only below the oldest of them, so a crash re-reads every record whose work
 * was not finished, while the work of several records runs at once.
 */
export function createInFlightWindow(capacity: number, capacityBytes = Infinity) {
  const offsets = new Map<number, Map<bigint, number>>();
  let active = 0;
  let bytes = 0;
  const full = (): boolean => active >= capacity || (active > 0 && bytes >= capacityBytes);
  const waiting: Array<() => void> = [];
  const idle: Array<() => void> = [];

  function freeSlot(size: number): void {
    active -= 1;
    bytes -= size;
    if (!full()) waiting.shift()?.();
    if (active === 0) for (const resolve of idle.splice(0)) resolve();
  }

  return {
    /** Resolves when there is room; the caller then `add`s. This is the consumer's backpressure. */
    room(): Promise<void> {
      return !full() ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
    },
    add(partition: number, offset: bigint, size = 0): void {
      active += 1;
      bytes += size;
      let held = offsets.get(partition);
      if (!held) offsets.set(partition, (held = new Map<bigint, number>()));
      held.set(offset, size);
    },
    remove(partition: number, offset: bigint): void {
      const held = offsets.get(partition);
      const size = held?.get(offset);
      if (size === undefined || !held?.delete(offset)) return;
      freeSlot(size);
    },
    /**
     * Gives up the slot of a record that was not finished (the scorer is stopping): the slot frees
     * for shutdown to complete, but the offset stays held, so nothing is committed past it.
     */
    abandon(partition: number, offset: bigint): void {
      freeSlot(offsets.get(partition)?.get(offset) ?? 0);
    },
    /** The highest committable offset given the last handled one, or null for none. */
    committable(partition: number, lastHandled: string): string | null {
      const held = offsets.get(partition);
      if (!held || held.size === 0) return lastHandled;
      let min: bigint | null = null;
      for (const o of held.keys()) if (min === null || o < min) min = o;
      return min! > 0n ? String(min! - 1n) : null;
    },
    /** Resolves once nothing is in flight. */
    drained(): Promise<void> {
      return active === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve));
    },
    size: () => active,
    full,
  };
}
