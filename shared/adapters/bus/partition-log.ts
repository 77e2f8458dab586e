import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { decodeFrames, FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES, type LoggedRecord } from './record-frame.ts';

export interface PartitionLogOptions {
  /** This partition's directory; its segments are `<first offset, 20 digits>.log`. */
  dir: string;
  /** A segment is closed and a new one started once it holds this many bytes. */
  segmentBytes: number;
  /** fdatasync after every append (off only for benchmarks and throwaway data). */
  fsync: boolean;
  log: Logger;
}

/** One partition of a topic on disk: append-only segments of CRC-framed records. */
export interface PartitionLog {
  /** The offset the next appended record gets. */
  endOffset(): number;
  /**
   * Appends encoded frames; resolves once they are on disk (fdatasync'd). Calls must not overlap
   * (the bus's group commit runs one at a time). A failed write is cut off again, so the file never
   * keeps a partial frame in front of later records.
   */
  append(frames: readonly Buffer[]): Promise<void>;
  /** Deletes the closed segments that hold only records below `offset` (never the active one). */
  deleteBelow(offset: number): Promise<void>;
  segmentCount(): number;
  /** Bytes of every segment on disk. */
  sizeBytes(): number;
  /** The oldest offset still on disk (segments below it were deleted). */
  firstOffset(): number;
  /** A reader of the records from `from` on, in order (`from` must still be on disk). */
  openReader(from: number): LogReader;
  close(): Promise<void>;
}

/**
 * Reads a partition's records back from disk, sequentially, one chunk per call: a consumer that
 * starts or rewinds below what the bus holds in memory reads through the log without holding it.
 */
export interface LogReader {
  /** The offset of the next record `read` returns. */
  position(): number;
  /**
   * The records from `position()` on that lie below `upTo` (which must be durable: at most the
   * log's end), about `maxBytes` of them, at least one when any lies below `upTo`.
   */
  read(upTo: number, maxBytes: number): Promise<LoggedRecord[]>;
  close(): Promise<void>;
}

export interface OpenedPartitionLog {
  log: PartitionLog;
  /** Where the caller asked to keep records from (clamped into the log); they stay on disk only. */
  start: number;
}

/** Bytes a reader asks the file for at a time (more when one frame is larger). */
const READ_BYTES = 256 * 1024;

const SEGMENT = /^(\d{20})\.log$/;
const segmentName = (base: number): string => `${String(base).padStart(20, '0')}.log`;

/**
 * Opens (or creates) a partition's log and recovers it: a torn or corrupt tail of the last segment
 * (a write cut by a crash or a power loss) is detected by its CRC and truncated; a bad record in an
 * older segment cannot come from a crash and stops the start-up (the segments from
 * `keepFrom(start, end)` on are checked now, one at a time, so that a consumer never meets the
 * damage later). The records stay on disk; consumers read them back with `openReader`.
 */
export function openPartitionLog(options: PartitionLogOptions, keepFrom: (start: number, end: number) => number): OpenedPartitionLog {
  const { dir, log } = options;
  mkdirSync(dir, { recursive: true });
  const bases = readdirSync(dir)
    .map((f) => SEGMENT.exec(f)?.[1])
    .filter((b): b is string => b !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (bases.length === 0) {
    closeSync(openSync(join(dir, segmentName(0)), 'a'));
    if (options.fsync) syncDir(dir);
    bases.push(0);
  }
  const last = bases[bases.length - 1];
  const lastPath = join(dir, segmentName(last));
  const lastBytes = readFileSync(lastPath);
  const tail = decodeFrames(lastBytes);
  if (tail.validBytes < lastBytes.length) {
    log.warn({ segment: lastPath, droppedBytes: lastBytes.length - tail.validBytes, keptRecords: tail.records.length }, 'torn or corrupt tail in the bus log; truncated (it was never acknowledged)');
    const fd = openSync(lastPath, 'r+');
    try {
      ftruncateSync(fd, tail.validBytes);
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  let end = last + tail.records.length;
  const start = bases[0];
  const from = Math.min(end, Math.max(start, keepFrom(start, end)));
  for (const [i, base] of bases.entries()) {
    const next = i + 1 < bases.length ? bases[i + 1] : Infinity;
    if (next <= from || base === last) continue;
    checkClosedSegment(join(dir, segmentName(base)), next - base);
  }

  let activeBase = last;
  let activeBytes = tail.validBytes;
  let handle: FileHandle | null = null;
  const segments = [...bases];
  /** Bytes of each closed segment, by base offset (the active one's are `activeBytes`). */
  const closedBytes = new Map(bases.filter((b) => b !== last).map((b) => [b, statSync(join(dir, segmentName(b))).size]));

  const partitionLog: PartitionLog = {
    endOffset: () => end,
    async append(frames) {
      if (frames.length === 0) return;
      if (activeBytes >= options.segmentBytes) {
        await handle?.close();
        handle = null;
        closedBytes.set(activeBase, activeBytes);
        activeBase = end;
        activeBytes = 0;
        segments.push(activeBase);
      }
      handle ??= await open(join(dir, segmentName(activeBase)), 'a');
      const bytes = frames.length === 1 ? frames[0] : Buffer.concat(frames);
      try {
        await handle.write(bytes);
        if (options.fsync) {
          await handle.datasync();
          // A new segment's name must survive a power loss too.
          if (activeBytes === 0) syncDir(dir);
        }
      } catch (err) {
        const h = handle;
        handle = null;
        await h
          .truncate(activeBytes)
          .then(() => h.close())
          .catch((truncErr: unknown) => log.error({ err: truncErr, dir }, 'could not cut a failed write off the bus log'));
        throw new RetriableError(`the bus log could not be written (${err instanceof Error ? err.message : String(err)})`, { cause: err });
      }
      activeBytes += bytes.length;
      end += frames.length;
    },
    async deleteBelow(offset) {
      const victims: number[] = [];
      while (segments.length > 1 && segments[1] <= offset) victims.push(segments.shift()!);
      for (const base of victims) {
        await unlink(join(dir, segmentName(base)));
        closedBytes.delete(base);
      }
    },
    segmentCount: () => segments.length,
    sizeBytes: () => [...closedBytes.values()].reduce((a, b) => a + b, activeBytes),
    firstOffset: () => segments[0],
    openReader: (from) => openLogReader(dir, segments, from),
    async close() {
      await handle?.close();
      handle = null;
    },
  };
  return { log: partitionLog, start: from };
}

function checkClosedSegment(path: string, expected: number): void {
  const bytes = readFileSync(path);
  const decoded = decodeFrames(bytes);
  if (decoded.validBytes !== bytes.length || decoded.records.length !== expected) {
    throw new PermanentError(`bus log segment ${path} is corrupt before its end (${decoded.records.length} of ${expected} records readable); move it away to start without it`);
  }
}

/**
 * A sequential reader over the segments (`segments`: the log's live list of base offsets). A
 * segment deleted while it is open stays readable through its handle; the next one is found by
 * the offset where the current one ends.
 */
function openLogReader(dir: string, segments: readonly number[], from: number): LogReader {
  let handle: FileHandle | null = null;
  let segmentBase = -1;
  let filePosition = 0;
  /** Bytes read from the file and not yet consumed; `bufferOffset` is the offset of the frame they start with. */
  let buffer = Buffer.alloc(0);
  let bufferOffset = 0;
  let next = from;

  const openSegment = async (base: number): Promise<void> => {
    await handle?.close();
    handle = null;
    handle = await open(join(dir, segmentName(base)), 'r');
    segmentBase = base;
    filePosition = 0;
    buffer = Buffer.alloc(0);
    bufferOffset = base;
  };
  /** Reads until `buffer` holds `bytes`; false at the end of the file. */
  const fill = async (bytes: number): Promise<boolean> => {
    while (buffer.length < bytes) {
      const chunk = Buffer.allocUnsafe(Math.max(READ_BYTES, bytes - buffer.length));
      const { bytesRead } = await handle!.read(chunk, 0, chunk.length, filePosition);
      if (bytesRead === 0) return false;
      filePosition += bytesRead;
      buffer = buffer.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([buffer, chunk.subarray(0, bytesRead)]);
    }
    return true;
  };
  const corrupt = (why: string): PermanentError => new PermanentError(`bus log segment ${join(dir, segmentName(segmentBase))} is unreadable at offset ${bufferOffset} (${why})`);

  return {
    position: () => next,
    async read(upTo, maxBytes) {
      const out: LoggedRecord[] = [];
      let bytes = 0;
      while (next < upTo && (out.length === 0 || bytes < maxBytes)) {
        if (handle === null) {
          const base = segments.findLast((b) => b <= next);
          if (base === undefined) throw new PermanentError(`bus log ${dir} no longer holds offset ${next} (its segments start at ${segments[0]})`);
          await openSegment(base);
        }
        if (!(await fill(FRAME_HEADER_BYTES))) {
          // This segment ends here; the next one starts at this offset.
          if (buffer.length > 0) throw corrupt('a frame cut short');
          if (!segments.includes(bufferOffset)) throw corrupt(`no segment follows at offset ${bufferOffset}`);
          await openSegment(bufferOffset);
          continue;
        }
        const length = buffer.readUInt32BE(0);
        if (length < 20 || length > MAX_PAYLOAD_BYTES) throw corrupt(`a frame length of ${length}`);
        const frameBytes = FRAME_HEADER_BYTES + length;
        if (!(await fill(frameBytes))) throw corrupt('a frame cut short');
        if (bufferOffset >= next) {
          const decoded = decodeFrames(buffer.subarray(0, frameBytes));
          if (decoded.records.length !== 1) throw corrupt('a frame fails its CRC');
          out.push(decoded.records[0]);
          bytes += frameBytes;
          next = bufferOffset + 1;
        }
        buffer = buffer.subarray(frameBytes);
        bufferOffset += 1;
      }
      // Bytes read ahead may belong to a write still under way (or cut off again when it failed):
      // forget them, and read them again next time.
      filePosition -= buffer.length;
      buffer = Buffer.alloc(0);
      return out;
    },
    async close() {
      await handle?.close();
      handle = null;
    },
  };
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
