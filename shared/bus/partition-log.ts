import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { PermanentError, RetriableError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import { decodeFrames, type LoggedRecord } from './record-frame.ts';

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
  close(): Promise<void>;
}

export interface OpenedPartitionLog {
  log: PartitionLog;
  /** The records the caller asked to keep, from `base` to the end of the log. */
  records: LoggedRecord[];
  base: number;
}

const SEGMENT = /^(\d{20})\.log$/;
const segmentName = (base: number): string => `${String(base).padStart(20, '0')}.log`;

/**
 * Opens (or creates) a partition's log and recovers it: a torn or corrupt tail of the last segment
 * (a write cut by a crash or a power loss) is detected by its CRC and truncated; a bad record in an
 * older segment cannot come from a crash and stops the start-up. Returns the records from
 * `keepFrom(start, end)` on, which the caller holds in memory for its consumers.
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
  const records: LoggedRecord[] = [];
  for (const [i, base] of bases.entries()) {
    const next = i + 1 < bases.length ? bases[i + 1] : Infinity;
    if (next <= from) continue;
    const segRecords = base === last ? tail.records : readClosedSegment(join(dir, segmentName(base)), next - base);
    const skip = Math.max(0, from - base);
    for (let r = skip; r < segRecords.length; r++) records.push(segRecords[r]);
  }

  let activeBase = last;
  let activeBytes = tail.validBytes;
  let handle: FileHandle | null = null;
  const segments = [...bases];

  const partitionLog: PartitionLog = {
    endOffset: () => end,
    async append(frames) {
      if (frames.length === 0) return;
      if (activeBytes >= options.segmentBytes) {
        await handle?.close();
        handle = null;
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
      for (const base of victims) await unlink(join(dir, segmentName(base)));
    },
    segmentCount: () => segments.length,
    async close() {
      await handle?.close();
      handle = null;
    },
  };
  return { log: partitionLog, records, base: from };
}

function readClosedSegment(path: string, expected: number): LoggedRecord[] {
  const bytes = readFileSync(path);
  const decoded = decodeFrames(bytes);
  if (decoded.validBytes !== bytes.length || decoded.records.length !== expected) {
    throw new PermanentError(`bus log segment ${path} is corrupt before its end (${decoded.records.length} of ${expected} records readable); move it away to start without it`);
  }
  return decoded.records;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
