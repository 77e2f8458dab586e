import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import { createTimeSlicer } from '../../runtime/flow/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { backoffDelayMs, sleepUnlessAborted, type BackoffPolicy } from './backoff.ts';
import { nextCommitOffset } from './commit-offset.ts';
import type { BusMessage, Consumer, ConsumerOptions } from './contract.ts';
import { writeDeadLetters } from './dead-letter.ts';
import { createDeferredDelivery, DEFAULT_MAX_IN_FLIGHT } from './deferred-delivery.ts';
import type { MemoryTopics, Topic } from './memory-topics.ts';
import { replayPartition } from './memory-replay.ts';
import type { LogReader } from './partition-log.ts';

/** Longest run of record handling in one consumer before it lets the event loop serve others. */
const YIELD_AFTER_MS = 10;
/** About how much of the log a consumer reads back from disk at a time. */
const DISK_CHUNK_BYTES = 1024 * 1024;
/** How often a held consumer asks `holdReading` again. */
const HOLD_POLL_MS = 50;

export interface MemoryConsumerDeps {
  topics: MemoryTopics;
  consumerOptions: ConsumerOptions;
  backoff: BackoffPolicy;
  /** How often an idle consumer asks `committableOffset` again. */
  recommitMs: number;
  /** Group-and-topic keys with a running consumer: the in-process bus runs one per pair. */
  activeMembers: Set<string>;
  log: Logger;
}

/**
 * A consumer of the in-process bus: reads its group's partitions round-robin from its commit (from
 * memory, or below what memory holds from the log on disk), hands each record to `deliver`, tracks
 * deferred work, and commits what the handler and the deferred work allow.
 */
export function createMemoryConsumer(deps: MemoryConsumerDeps): Consumer {
  const { topics, consumerOptions, backoff, recommitMs, activeMembers } = deps;
  const { topic, groupId } = consumerOptions;
  const memberKey = `${groupId}\u0000${topic}`;
  const clog = deps.log.child({ component: 'bus.memory.consumer', topic, groupId });
  const abort = new AbortController();
  let loop: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;

  const run = async (): Promise<void> => {
    const t = topics.topicOf(topic);
    const commits = topics.committedFor(groupId, topic);
    const fromBeginning = consumerOptions.fromBeginning ?? true;
    // Where each partition starts: the group's commit, else the beginning or the current end.
    const positions = t.partitions.map((part, p) => Number(commits.get(p) ?? (fromBeginning ? part.start : part.records.end)));
    // A group that has not committed yet must still hold back trimming from where it starts.
    t.partitions.forEach((_, p) => {
      if (!commits.has(p)) commits.set(p, String(positions[p]));
    });
    // Memory keeps what this consumer has not taken yet (from here on, as it reads).
    t.positions.set(groupId, positions);
    const { replay } = consumerOptions;
    // What the group keeps below its commit for a replay after its next start (0: nothing).
    await topics.keepForReplay(groupId, topic, replay?.maxRecords ?? 0).catch((err: unknown) => clog.warn({ err }, 'could not write what the bus keeps for replays; the next start may replay less'));
    /** Partitions whose replay is still to be handed over, before their first record is handled. */
    const toReplay = new Set(replay ? t.partitions.map((_, p) => p) : []);
    const fromDisk = t.partitions.map(() => ({ reader: null as LogReader | null, chunk: [] as BusMessage[], chunkStart: 0 }));
    /**
     * The record at the consumer's position in `partition`: from memory, or, below what memory
     * holds, from the log on disk, read a chunk at a time (each record of it delivered once).
     */
    const recordAt = async (partition: number): Promise<BusMessage> => {
      const part = t.partitions[partition];
      const at = positions[partition];
      const d = fromDisk[partition];
      if (at >= part.records.base) {
        if (d.reader) {
          // Caught up with memory: the chunk and the file are not needed any more.
          await d.reader.close();
          d.reader = null;
          d.chunk = [];
        }
        return part.records.get(at);
      }
      if (at >= d.chunkStart && at < d.chunkStart + d.chunk.length) return d.chunk[at - d.chunkStart];
      if (d.reader?.position() !== at) {
        await d.reader?.close();
        d.reader = part.log!.openReader(at);
      }
      const read = await d.reader.read(part.records.base, DISK_CHUNK_BYTES);
      if (read.length === 0) throw new RetriableError(`the bus log of ${topic}/${partition} ended before offset ${at}`);
      d.chunk = read.map((r, i): BusMessage => ({ topic, partition, offset: String(at + i), ...r }));
      d.chunkStart = at;
      return d.chunk[0];
    };
    const lastHandled = new Map<number, string>();
    const deadLetter = (m: BusMessage, err: unknown): Promise<void> => writeDeadLetters(topics.append, [m], err);
    const deferred = createDeferredDelivery({
      capacity: consumerOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
      ...(consumerOptions.maxInFlightBytes !== undefined ? { capacityBytes: consumerOptions.maxInFlightBytes } : {}),
      deadLetter, backoff, signal: abort.signal, log: clog });
    const commit = (partition: number, handled: string): void => {
      const own = consumerOptions.committableOffset ? consumerOptions.committableOffset(partition, handled) : handled;
      const allowed = deferred.committable(partition, handled, own);
      const next = nextCommitOffset(handled, allowed, commits.get(partition) ?? null);
      if (next !== null) commits.set(partition, next);
    };
    try {
      let next = 0;
      let diskFailures = 0;
      const slicer = createTimeSlicer(YIELD_AFTER_MS);
      while (!abort.signal.aborted) {
        // Records already here are handled without waiting on I/O, each in a microtask: a backlog
        // of 10,000 would hold the event loop for its whole length. Other work gets a turn between slices.
        if (slicer.due()) await slicer.pause();
        const partition = nextReadyPartition(t, positions, next);
        if (partition !== null && deferred.full()) {
          // Full of unfinished deferred work: take nothing new until some finishes (or shutdown).
          for (const [p, handled] of lastHandled) commit(p, handled);
          await deferred.room();
          slicer.restart();
          continue;
        }
        if (partition !== null && consumerOptions.holdReading?.()) {
          // Held (the handler's side holds all it may): take nothing new until it lets go.
          for (const [p, handled] of lastHandled) commit(p, handled);
          await sleepUnlessAborted(HOLD_POLL_MS, abort.signal);
          slicer.restart();
          continue;
        }
        if (partition === null) {
          // Deferred work (or the committableOffset hook) may allow more after the last record: ask again while idle.
          for (const [p, handled] of lastHandled) commit(p, handled);
          // What this consumer has taken need not stay in memory (with a log) while it waits.
          topics.trim(topic, t);
          await new Promise<void>((resolve) => {
            const wake = (): void => {
              clearTimeout(timer);
              abort.signal.removeEventListener('abort', wake);
              t.waiters.delete(wake);
              resolve();
            };
            const timer = setTimeout(wake, recommitMs);
            t.waiters.add(wake);
            abort.signal.addEventListener('abort', wake, { once: true });
          });
          slicer.restart();
          continue;
        }
        // Round-robin, so one busy partition cannot starve the others.
        next = (partition + 1) % t.partitions.length;
        const part = t.partitions[partition];
        // Trimmed below this consumer (only for records no group was reading): start at what is left.
        if (positions[partition] < part.start) positions[partition] = part.start;
        let message: BusMessage;
        try {
          message = await recordAt(partition);
          diskFailures = 0;
        } catch (err) {
          // The log could not be read back: try again (from the same offset) rather than skip records.
          clog.error({ err, partition, offset: positions[partition] }, 'could not read the bus log back from disk; retrying');
          await fromDisk[partition].reader?.close().catch(() => undefined);
          fromDisk[partition].reader = null;
          if (!(await sleepUnlessAborted(backoffDelayMs(diskFailures++, backoff), abort.signal))) break;
          slicer.restart();
          continue;
        }
        if (replay && toReplay.delete(partition)) {
          try {
            const taken = await replayPartition(t.partitions[partition], topic, partition, positions[partition], message.timestampMs, replay);
            clog.info({ partition, records: taken, below: positions[partition] }, 'replayed the records below the commit');
          } catch (err) {
            // Without the replay nothing is lost: the records from the commit on are handled as ever.
            clog.warn({ err, partition }, 'could not replay the records below the commit; going on without them');
          }
        }
        const outcome = await deferred.deliver(message, (m) => consumerOptions.handle(m));
        if (outcome === 'stopped') break;
        positions[partition] = positions[partition] + 1;
        lastHandled.set(partition, message.offset);
        commit(partition, message.offset);
      }
      // Work in hand finishes (retry waits end at once); what is unfinished stays uncommitted.
      await deferred.drained();
      for (const [p, handled] of lastHandled) commit(p, handled);
    } finally {
      t.positions.delete(groupId);
      for (const d of fromDisk) await d.reader?.close();
    }
  };

  return {
    name: `bus.memory.consumer:${topic}`,
    start() {
      if (loop) return Promise.resolve();
      if (activeMembers.has(memberKey)) {
        return Promise.reject(new PermanentError(`the in-memory bus runs one consumer per group and topic; group ${groupId} already consumes ${topic}`));
      }
      activeMembers.add(memberKey);
      loop = run().catch((err: unknown) => {
        clog.error({ err }, 'consumer stopped on an error');
      });
      return Promise.resolve();
    },
    shutdown() {
      if (!stopping) {
        abort.abort();
        stopping = (loop ?? Promise.resolve())
          .finally(() => {
            if (loop) activeMembers.delete(memberKey);
          })
          .then(() => topics.persistOffsets());
      }
      return stopping;
    },
  };
}

function nextReadyPartition(topic: Topic, positions: number[], from: number): number | null {
  const n = topic.partitions.length;
  for (let i = 0; i < n; i += 1) {
    const p = (from + i) % n;
    const part = topic.partitions[p];
    if (positions[p] < part.records.end) return p;
  }
  return null;
}
