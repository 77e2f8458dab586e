/**
 * Waiting jobs grouped by key (for the sandboxes: the check's code), served round-robin across
 * keys, so many queued evaluations of one check do not hold up another check's.
 */
export interface FairQueue<J> {
  push(key: string, job: J): void;
  /** The next job, in key rotation, among keys `admit` accepts now; removed from the queue. */
  take(admit: (key: string) => boolean): { key: string; job: J } | undefined;
  /** Removes and returns every job of a key. */
  drainKey(key: string): J[];
  /** Removes and returns every job. */
  drain(): J[];
  size(): number;
  /** Keys with waiting jobs, in rotation order. */
  keys(): string[];
  /** Jobs waiting under a key. */
  count(key: string): number;
}

export function createFairQueue<J>(): FairQueue<J> {
  // Insertion order of a Map is the rotation: a served key moves to the back.
  const byKey = new Map<string, J[]>();
  let size = 0;
  return {
    push(key, job) {
      const list = byKey.get(key);
      if (list) list.push(job);
      else byKey.set(key, [job]);
      size++;
    },
    take(admit) {
      for (const [key, list] of byKey) {
        if (!admit(key)) continue;
        const job = list.shift()!;
        size--;
        byKey.delete(key);
        if (list.length > 0) byKey.set(key, list);
        return { key, job };
      }
      return undefined;
    },
    drainKey(key) {
      const list = byKey.get(key) ?? [];
      byKey.delete(key);
      size -= list.length;
      return list;
    },
    drain() {
      const all = [...byKey.values()].flat();
      byKey.clear();
      size = 0;
      return all;
    },
    size: () => size,
    keys: () => [...byKey.keys()],
    count: (key) => byKey.get(key)?.length ?? 0,
  };
}
