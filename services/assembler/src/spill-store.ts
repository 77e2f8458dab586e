import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_SEGMENT_BYTES } from '../../../shared/runtime/config/index.ts';
import { RetriableError } from '../../../shared/runtime/errors/index.ts';

export interface SpillStoreOptions {
  /**
   * Parent directory. The store works in a subdirectory of its own (`<pid>-<process start>-<random>`),
   * and removes, at start, those left by processes that are gone (a pid reused by another process
   * counts as gone): the contents are never read back after a restart (the bus replays what was not committed).
   */
  dir: string;
  /** Bytes per segment file; a record larger than this gets a segment of its own. Default 16 MiB. */
  segmentBytes?: number;
}

/** Where a store keeps its bytes: on disk (createSpillStore) or, in tests and tools, on the heap. */
export interface ByteStore {
  /** Keeps `bytes` and returns their id (a small integer). Throws a RetriableError when they could not be kept: nothing changed then. */
  put(bytes: Uint8Array): number;
  /** The bytes kept under `id`. Throws a RetriableError when they could not be read. */
  get(id: number): Buffer;
  /** `id` is no longer needed (and may be given out again). */
  free(id: number): void;
  close(): void;
}

interface Segment {
  no: number;
  fd: number;
  path: string;
  /** Bytes written. */
  size: number;
  /** Records and bytes still referenced. */
  live: number;
  liveBytes: number;
}

const NO_SEGMENT = -1;
/** Records copied out of a segment being rewritten, per record written: about 0.2 ms. */
const MOVE_PER_PUT = 32;

/**
 * Record bytes appended to segment files on local disk, read back with positional reads. The heap
 * keeps 12 bytes per record (segment, position, length in typed arrays, indexed by the record's id).
 * Not durable: no fsync, nothing survives the process. A segment file is deleted once none of its
 * records is referenced. A segment kept alive by a few long-lived records is rewritten: whenever
 * the dead bytes on disk exceed the live bytes plus one segment, the live records of the emptiest
 * segment (less than half live) are copied to the current one, MOVE_PER_PUT with each record
 * written so that no call blocks for long; each record moved frees at least two records' worth of
 * dead bytes, so this outpaces the garbage, and the files hold about twice the live bytes plus a
 * segment or two.
 */
export function createSpillStore(options: SpillStoreOptions): ByteStore & { stats(): SpillStats } {
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  mkdirSync(options.dir, { recursive: true });
  removeLeftovers(options.dir);
  const dir = join(options.dir, `${process.pid}-${startOf(process.pid) ?? 0}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);

  const segments = new Map<number, Segment>();
  let current: Segment | null = null;
  let nextSegment = 0;
  let segOf = new Int32Array(1024).fill(NO_SEGMENT);
  let posOf = new Uint32Array(1024);
  let lenOf = new Uint32Array(1024);
  const freeIds: number[] = [];
  let nextId = 0;
  let diskBytes = 0;
  let liveBytes = 0;
  let compactions = 0;
  /** The segment being rewritten, and the ids that were in it when it was chosen. */
  let moving: { seg: Segment; ids: number[]; next: number } | null = null;
  let closed = false;

  function openSegment(): Segment {
    const no = nextSegment++;
    const path = join(dir, `${no}.seg`);
    let fd: number;
    try {
      fd = openSync(path, 'w+');
    } catch (err) {
      throw new RetriableError(`a spill segment could not be created (${(err as Error).message})`, { cause: err });
    }
    const seg = { no, fd, path, size: 0, live: 0, liveBytes: 0 };
    segments.set(no, seg);
    return seg;
  }

  function dropSegment(seg: Segment): void {
    segments.delete(seg.no);
    diskBytes -= seg.size;
    closeSync(seg.fd);
    try {
      unlinkSync(seg.path);
    } catch {
      // Gone already (a cleaner of the temp directory): nothing refers to it any more.
    }
  }

  /** Appends to the current segment (a new one when full); the segment and position written. */
  function append(bytes: Uint8Array): { seg: Segment; pos: number } {
    if (closed) throw new RetriableError('the spill store is closed');
    if (!current || (current.size > 0 && current.size + bytes.length > segmentBytes)) {
      const next = openSegment();
      const before = current;
      current = next;
      if (before && before.live === 0) dropSegment(before);
    }
    const seg = current;
    let done = 0;
    try {
      // Bytes past seg.size are not counted until every one is written: a failed write leaves
      // nothing referenced, and the next write overwrites them.
      while (done < bytes.length) done += writeSync(seg.fd, bytes, done, bytes.length - done, seg.size + done);
    } catch (err) {
      // The next write goes to a new file: this one may be what fails (EIO), not the disk.
      current = null;
      if (seg.live === 0) dropSegment(seg);
      throw new RetriableError(`a record could not be spilled to disk (${(err as Error).message})`, { cause: err });
    }
    const pos = seg.size;
    seg.size += bytes.length;
    diskBytes += bytes.length;
    return { seg, pos };
  }

  function place(id: number, seg: Segment, pos: number, length: number): void {
    segOf[id] = seg.no;
    posOf[id] = pos;
    lenOf[id] = length;
    seg.live += 1;
    seg.liveBytes += length;
  }

  function newId(): number {
    const reused = freeIds.pop();
    if (reused !== undefined) return reused;
    if (nextId === segOf.length) {
      const grow = <A extends Int32Array | Uint32Array>(a: A, make: (n: number) => A): A => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      segOf = grow(segOf, (n) => new Int32Array(n).fill(NO_SEGMENT));
      posOf = grow(posOf, (n) => new Uint32Array(n));
      lenOf = grow(lenOf, (n) => new Uint32Array(n));
    }
    return nextId++;
  }

  function put(bytes: Uint8Array): number {
    const { seg, pos } = append(bytes);
    const id = newId();
    place(id, seg, pos, bytes.length);
    liveBytes += bytes.length;
    compactStep();
    return id;
  }

  function get(id: number): Buffer {
    const seg = segments.get(segOf[id]);
    if (!seg) throw new RangeError(`spill record ${id} is not held`);
    const length = lenOf[id];
    const pos = posOf[id];
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    try {
      while (done < length) {
        const n = readSync(seg.fd, buf, done, length - done, pos + done);
        if (n === 0) throw new Error(`segment ${seg.no} ends before ${pos + length}`);
        done += n;
      }
    } catch (err) {
      throw new RetriableError(`a spilled record could not be read (${(err as Error).message})`, { cause: err });
    }
    return buf;
  }

  function free(id: number): void {
    const seg = segments.get(segOf[id]);
    if (!seg) throw new RangeError(`spill record ${id} is not held`);
    segOf[id] = NO_SEGMENT;
    seg.live -= 1;
    seg.liveBytes -= lenOf[id];
    liveBytes -= lenOf[id];
    freeIds.push(id);
    if (seg.live === 0 && seg !== current) dropSegment(seg);
  }

  /**
   * One step of rewriting the emptiest segment, chosen when the dead bytes exceed the live ones plus
   * a segment. A failure (disk full) stops the step: a record is re-pointed only once its copy is
   * written, and the next step goes on.
   */
  function compactStep(): void {
    if (!moving) {
      if (diskBytes - liveBytes <= liveBytes + segmentBytes) return;
      let victim: Segment | null = null;
      for (const seg of segments.values()) {
        if (seg === current) continue;
        if (!victim || seg.liveBytes / seg.size < victim.liveBytes / victim.size) victim = seg;
      }
      if (!victim || victim.liveBytes * 2 > victim.size) return;
      const ids: number[] = [];
      for (let id = 0; id < nextId; id++) if (segOf[id] === victim.no) ids.push(id);
      moving = { seg: victim, ids, next: 0 };
      compactions += 1;
    }
    const m = moving;
    try {
      for (let moved = 0; moved < MOVE_PER_PUT && m.next < m.ids.length; m.next++) {
        const id = m.ids[m.next];
        // Freed since (an id given out again never points into an old segment).
        if (segOf[id] !== m.seg.no) continue;
        const bytes = get(id);
        const { seg, pos } = append(bytes);
        m.seg.live -= 1;
        m.seg.liveBytes -= bytes.length;
        place(id, seg, pos, bytes.length);
        moved += 1;
      }
    } catch {
      return;
    }
    if (m.next < m.ids.length) return;
    moving = null;
    // Dropped already if its last record was freed rather than moved.
    if (segments.get(m.seg.no) === m.seg) dropSegment(m.seg);
  }

  return {
    put,
    get,
    free,
    stats: () => ({ segments: segments.size, diskBytes, liveBytes, records: nextId - freeIds.length, compactions, dir }),
    close: () => {
      if (closed) return;
      closed = true;
      moving = null;
      for (const seg of segments.values()) closeSync(seg.fd);
      segments.clear();
      current = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SpillStats {
  segments: number;
  /** Bytes in the segment files, dead ones included. */
  diskBytes: number;
  liveBytes: number;
  records: number;
  compactions: number;
  dir: string;
}

/** Subdirectories of processes that are gone, or of an earlier process that had the same pid. */
function removeLeftovers(parent: string): void {
  for (const name of readdirSync(parent)) {
    const match = /^(\d+)-(\d+)-[0-9a-f]{8}$/.exec(name);
    if (!match || isRunning(Number(match[1]), match[2])) continue;
    try {
      rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      // Another process starting now may be removing it too.
    }
  }
}

/** Whether the process that made a directory still runs: same pid and, where /proc tells, same start. */
function isRunning(pid: number, start: string): boolean {
  const now = startOf(pid);
  if (now !== null) return start === '0' || now === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's start time in clock ticks after boot (Linux /proc), null where there is none (gone, or no /proc). */
function startOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces and parentheses): state is field 3, start time field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The same contract in memory (tests and tools that need no disk). */
export function createMemoryByteStore(): ByteStore {
  // Each record in an ArrayBuffer of its own: a slice of Buffer's shared pool would keep the whole pool alive.
  const held: Array<Buffer | undefined> = [];
  const freeIds: number[] = [];
  return {
    put: (bytes) => {
      const id = freeIds.pop() ?? held.length;
      held[id] = Buffer.from(bytes);
      return id;
    },
    get: (id) => {
      const bytes = held[id];
      if (!bytes) throw new RangeError(`record ${id} is not held`);
      return bytes;
    },
    free: (id) => {
      held[id] = undefined;
      freeIds.push(id);
    },
    close: () => {},
  };
}
