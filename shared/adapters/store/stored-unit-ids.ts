import { toWellFormed } from './sql-quote.ts';

/**
 * Which unit ids a store may hold, in a few bits an id (Bloom filters): `mayHold` false means the
 * id was never added, true means it probably was.
 *
 * The DuckDB store asks it before looking ids up: its tables hold no index (see duckdb-schema.ts),
 * so every lookup by unit id scans the table, and a scan's cost grows with every unit stored.
 * Almost every id the pipeline asks about is new (a trace stored the first time, a new
 * conversation's session), and for those no scan runs at all.
 *
 * Filters are added as ids arrive, each twice the capacity of the one before, so no filter ever
 * fills past its capacity and nothing is rebuilt; memory is about 2.5 bytes an id added (at most twice that).
 */
export interface StoredUnitIds {
  add(id: string): void;
  mayHold(id: string): boolean;
  /** Ids added so far (an id added twice counts twice). */
  readonly size: number;
}

/**
 * Bits per id at capacity and hashes per id: about 7 in 100,000 false positives per full filter.
 * A write asks for its whole batch at once, and one false positive among them costs the scan.
 */
const BITS_PER_ID = 20;
const HASHES = 14;
const FIRST_CAPACITY = 65_536;

/**
 * Two independent 32-bit FNV-1a hashes of an id as DuckDB holds it (lone surrogates become U+FFFD
 * on their way there, so an id is looked up as it was stored), for double hashing.
 */
function hashPair(raw: string): [number, number] {
  const id = toWellFormed(raw);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < id.length; i++) {
    const ch = id.charCodeAt(i);
    a = Math.imul(a ^ ch, 0x01000193);
    b = Math.imul(b ^ ch, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // An odd step, so that the probes of one id never collapse onto one bit.
  return [a >>> 0, (b | 1) >>> 0];
}

interface Filter {
  bits: Uint32Array;
  bitCount: number;
  capacity: number;
  count: number;
}

function newFilter(capacity: number): Filter {
  const bitCount = capacity * BITS_PER_ID;
  return { bits: new Uint32Array(Math.ceil(bitCount / 32)), bitCount, capacity, count: 0 };
}

export function createStoredUnitIds(): StoredUnitIds {
  const filters: Filter[] = [newFilter(FIRST_CAPACITY)];
  let size = 0;
  return {
    add(id) {
      let f = filters[filters.length - 1];
      if (f.count >= f.capacity) {
        f = newFilter(f.capacity * 2);
        filters.push(f);
      }
      const [h1, h2] = hashPair(id);
      for (let k = 0; k < HASHES; k++) {
        const bit = (h1 + k * h2) % f.bitCount;
        f.bits[bit >>> 5] |= 1 << (bit & 31);
      }
      f.count += 1;
      size += 1;
    },
    mayHold(id) {
      const [h1, h2] = hashPair(id);
      return filters.some((f) => {
        for (let k = 0; k < HASHES; k++) {
          const bit = (h1 + k * h2) % f.bitCount;
          if ((f.bits[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
        }
        return true;
      });
    },
    get size() {
      return size;
    },
  };
}

/**
 * `read` for the ids of `ids` that `stored` may hold, in one call; none asked (and `empty`
 * returned) when it holds none of them, the common case of ids the pipeline sees first.
 */
export async function readIfStored<T>(stored: StoredUnitIds, ids: readonly string[], read: (maybeStored: string[]) => Promise<T>, empty: T): Promise<T> {
  const maybe = ids.filter((id) => stored.mayHold(id));
  return maybe.length > 0 ? read(maybe) : empty;
}
