import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createGroupCommit } from '../../runtime/batching/index.ts';
import { DEFAULT_SEGMENT_BYTES } from '../../runtime/config/index.ts';
import { createSerialQueue } from '../../runtime/flow/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { readOffsetsFile, writeOffsetsFile, type CommittedOffsets } from './offset-file.ts';
import { openPartitionLog, type OpenedPartitionLog, type PartitionLog } from './partition-log.ts';
import { encodeFrame, type LoggedRecord } from './record-frame.ts';
import { readReplayKeepFile, writeReplayKeepFile, type ReplayKeep } from './replay-keep-file.ts';

export interface BusStorageOptions {
  /** Where the log lives: `topics/<topic>/<partition>/*.log`, `offsets.json` and `replay.json`. */
  dir: string;
  /** fdatasync before a send resolves. Default true. */
  fsync?: boolean;
  /** Segment size in bytes: the unit of deletion. Default 16 MiB. */
  segmentBytes?: number;
  log: Logger;
}

/** One record to append: the partition's log and the record (its frame is encoded on the way). */
export interface PendingAppend {
  log: PartitionLog;
  record: LoggedRecord;
}

/**
 * The disk side of the in-process bus: a log per topic partition, and the groups' committed
 * offsets. Appends of concurrent senders share one write and one fdatasync per partition (group
 * commit): each sender waits for the fsync of the batch it joined, so a collector answers 200 only
 * for records that are on disk, while throughput is paid per batch, not per request.
 */
export function createBusStorage(options: BusStorageOptions) {
  const fsync = options.fsync ?? true;
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  const topicsDir = join(options.dir, 'topics');
  const offsetsPath = join(options.dir, 'offsets.json');
  const replayPath = join(options.dir, 'replay.json');
  mkdirSync(topicsDir, { recursive: true });
  const log = options.log;

  /** Topics found on disk at start-up (names are stored URI-encoded, so any topic name is a safe path). */
  const storedTopics = (): string[] => (existsSync(topicsDir) ? readdirSync(topicsDir).map((d) => decodeURIComponent(d)) : []);

  const openPartition = (topic: string, partition: number, keepFrom: (start: number, end: number) => number): OpenedPartitionLog =>
    openPartitionLog({ dir: join(topicsDir, encodeURIComponent(topic), String(partition)), segmentBytes, fsync, log }, keepFrom);

  /**
   * Writes a batch: every partition's frames in one write and one fdatasync, partitions in
   * parallel. `onDurable` runs for each partition whose write landed, in append order, even when
   * another partition's failed (what is on disk must also be in memory, or offsets would diverge).
   */
  const appendBatch = async (items: Array<PendingAppend & { onDurable(): void }>): Promise<void> => {
    const byLog = new Map<PartitionLog, Array<PendingAppend & { onDurable(): void }>>();
    for (const item of items) {
      let list = byLog.get(item.log);
      if (!list) byLog.set(item.log, (list = []));
      list.push(item);
    }
    const results = await Promise.allSettled(
      [...byLog].map(async ([partitionLog, list]) => {
        await partitionLog.append(list.map((i) => encodeFrame(i.record)));
        for (const i of list) i.onDurable();
      }),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  const commit = createGroupCommit(appendBatch, { maxItems: 50_000 });

  const offsetsWrites = createSerialQueue();

  return {
    fsync,
    storedTopics,
    openPartition,
    readOffsets: (): CommittedOffsets => readOffsetsFile(offsetsPath),
    /** Resolves once the records are on disk and `onDurable` has run for each. */
    append: (items: Array<PendingAppend & { onDurable(): void }>): Promise<void> => commit.write(items),
    /** Writes the offsets (one write at a time; the latest wins). */
    writeOffsets(offsets: CommittedOffsets): Promise<void> {
      const write = offsetsWrites.run(() => writeOffsetsFile(offsetsPath, offsets, fsync));
      void write.catch((err: unknown) => log.error({ err }, 'could not write the bus offsets file'));
      return write;
    },
    readReplayKeep: (): ReplayKeep => readReplayKeepFile(replayPath),
    /** Writes what groups keep for their replay (one write at a time, in the offsets' queue). */
    writeReplayKeep: (keep: ReplayKeep): Promise<void> => offsetsWrites.run(() => writeReplayKeepFile(replayPath, keep, fsync)),
    idle: () => commit.idle(),
  };
}

export type BusStorage = ReturnType<typeof createBusStorage>;
