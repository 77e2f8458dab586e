/**
 * A map for the common case of one entry: the first entry in fields, a real Map only from the
 * second. The session window keeps a map of traces per open session, most sessions have one
 * trace, and an open session lives for the
 * idle time (15 minutes by default), so there are many: an empty Map costs ~170 bytes of heap,
 * this ~40. Keys compare as in a Map (SameValueZero).
 */
export class SmallMap<K, V> {
  private firstKey: K | undefined = undefined;
  private firstValue: V | undefined = undefined;
  private hasFirst = false;
  private rest: Map<K, V> | null = null;

  get size(): number {
    return this.rest ? this.rest.size : this.hasFirst ? 1 : 0;
  }

  get(key: K): V | undefined {
    if (this.rest) return this.rest.get(key);
    return this.hasFirst && sameValueZero(this.firstKey, key) ? this.firstValue : undefined;
  }

  set(key: K, value: V): void {
    if (this.rest) {
      this.rest.set(key, value);
    } else if (!this.hasFirst || sameValueZero(this.firstKey, key)) {
      this.firstKey = key;
      this.firstValue = value;
      this.hasFirst = true;
    } else {
      this.rest = new Map([[this.firstKey as K, this.firstValue as V], [key, value]]);
      this.firstKey = undefined;
      this.firstValue = undefined;
    }
  }

  *values(): IterableIterator<V> {
    if (this.rest) yield* this.rest.values();
    else if (this.hasFirst) yield this.firstValue as V;
  }
}

function sameValueZero(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}
