/**
 * Records being worked on after their handler returned, per partition, with a capacity. The
 * consumer may commit only below the oldest of them, so a crash re-reads every record whose work
 * was not finished, while the work of several records runs at once.
 */
export function createInFlightWindow(capacity: number) {
  const offsets = new Map<number, Set<bigint>>();
  let active = 0;
  const waiting: Array<() => void> = [];
  const idle: Array<() => void> = [];

  function freeSlot(): void {
    active -= 1;
    waiting.shift()?.();
    if (active === 0) for (const resolve of idle.splice(0)) resolve();
  }

  return {
    /** Resolves when there is room; the caller then `add`s. This is the consumer's backpressure. */
    room(): Promise<void> {
      return active < capacity ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
    },
    add(partition: number, offset: bigint): void {
      active += 1;
      let set = offsets.get(partition);
      if (!set) offsets.set(partition, (set = new Set()));
      set.add(offset);
    },
    remove(partition: number, offset: bigint): void {
      if (!offsets.get(partition)?.delete(offset)) return;
      freeSlot();
    },
    /**
     * Gives up the slot of a record that was not finished (the scorer is stopping): the slot frees
     * for shutdown to complete, but the offset stays held, so nothing is committed past it.
     */
    abandon(_partition: number, _offset: bigint): void {
      freeSlot();
    },
    /** The highest committable offset given the last handled one, or null for none. */
    committable(partition: number, lastHandled: string): string | null {
      const set = offsets.get(partition);
      if (!set || set.size === 0) return lastHandled;
      let min: bigint | null = null;
      for (const o of set) if (min === null || o < min) min = o;
      return min! > 0n ? String(min! - 1n) : null;
    },
    /** Resolves once nothing is in flight. */
    drained(): Promise<void> {
      return active === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve));
    },
    size: () => active,
  };
}
