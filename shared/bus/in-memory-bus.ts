import { PermanentError, RetriableError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import { backoffDelayMs, DEFAULT_BACKOFF, sleepUnlessAborted, type BackoffPolicy } from './backoff.ts';
import { nextCommitOffset } from './commit-offset.ts';
import type { Bus, BusMessage, Consumer, ConsumerOptions, DeferredWork, OutgoingMessage, Producer } from './contract.ts';
import { deadLetterRecord, deadLetterTopic } from './dead-letter.ts';
import { deliver } from './deliver.ts';
import { createDeferredDelivery, DEFAULT_MAX_IN_FLIGHT } from './deferred-delivery.ts';
import { createBusStorage, type BusStorageOptions } from './bus-storage.ts';
import type { CommittedOffsets } from './offset-file.ts';
import type { LogReader, PartitionLog } from './partition-log.ts';
import { RecordWindow } from './record-window.ts';

export interface InMemoryBusOptions {
  log: Logger;
  /** Partitions per topic; keys hash onto them, so one key keeps its order. Default 1. */
  partitions?: number;
  /** Backoff between retries of a retriable handler failure. */
  retryBackoff?: BackoffPolicy;
  /**
   * Records of a topic that some consumer group has not read yet (without `durable`: not yet
   * committed by every group that reads it, since memory is their only copy). A send beyond it is
   * refused with a BusFullError, which the collector answers 429 + Retry-After: backpressure
   * instead of unbounded memory. Default 100,000.
   */
  maxRetainedRecords?: number;
  /** Records kept of a topic that no group reads (nobody will ask for them). Default 1,000. */
  retainUnread?: number;
  /**
   * Keeps the records and the groups' committed offsets on disk under `dir`: a send resolves only
   * once its records are fsync'd, and a new bus on the same directory replays what no group
   * committed. Memory then holds only what a running consumer has yet to read; a consumer that
   * starts (or restarts) below that reads the log back from disk. Without it, records live in
   * memory only, until every reading group has committed them.
   */
  durable?: Omit<BusStorageOptions, 'log'> & {
    /** How often committed offsets are written and fully committed segments deleted. Default 200 ms. */
    offsetFlushMs?: number;
  };
  /** How often an idle consumer asks `committableOffset` again (handlers that finish later). Default 250 ms. */
  recommitMs?: number;
}

/** What the bus holds of one topic, summed over its partitions. */
export interface TopicHoldings {
  topic: string;
  /** Records held in memory (with `durable`: those a running consumer has not read yet). */
  inMemory: number;
  /** Records some reading group has not read yet: what `maxRetainedRecords` bounds. */
  unread: number;
  /** Bytes of the topic's log segments on disk (0 without `durable`). */
  onDiskBytes: number;
}

/** The in-process bus; `close()` writes the committed offsets and closes its log files. */
export interface InMemoryBus extends Bus {
  /** What each topic holds in memory and on disk (for metrics and tests). */
  holdings(): TopicHoldings[];
  close(): Promise<void>;
}

/** The in-process bus is full: its consumers are behind. Retriable: retry after they catch up. */
export class BusFullError extends RetriableError {}

interface Partition {
  /**
   * The records held in memory; `records.end` is where the next record goes. Without a log, those
   * below `records.base` were committed by every group and dropped; with one, they were read by
   * every running consumer and stay on disk only.
   */
  records: RecordWindow<BusMessage>;
  /**
   * Where a new group starts reading: records below it were committed by every group reading the
   * topic (or, with none reading it, are past `retainUnread`). Without a log, `records.base`.
   */
  start: number;
  /** The partition's log on disk (durable bus only). */
  log: PartitionLog | null;
  /** Records being written to disk: counted against the limit, not yet readable. */
  pending: number;
}

interface Topic {
  partitions: Partition[];
  /** Resolvers of consumers idle on this topic; a send wakes them all. */
  waiters: Set<() => void>;
  /** The read positions (next offset to take, per partition) of the consumers running on it, by group. */
  positions: Map<string, number[]>;
}

/** Longest run of record handling in one consumer before it lets the event loop serve others. */
const YIELD_AFTER_MS = 10;
/** About how much of the log a consumer reads back from disk at a time. */
const DISK_CHUNK_BYTES = 1024 * 1024;

/**
 * The Kafka contract inside one process, for the embedded mode and tests: same partitioning by key,
 * per-partition order, consumer groups with committed offsets, retries and `<topic>.dlq`.
 * With `durable`, records are written to a log on disk first (see bus-storage.ts) and held in
 * memory only until every running consumer has taken them: a group that commits far behind what it
 * has read (the session assembler holds a session's records for its idle time) costs disk, not
 * memory, and a consumer that starts below what memory holds reads the log back in chunks. A record
 * leaves the disk with its whole segment once every reading group has committed it. Without
 * `durable`, memory is the only copy, held until every reading group has committed it. Either way,
 * a topic whose readers fall too far behind refuses sends (BusFullError) until they catch up.
 */
export function createInMemoryBus(options: InMemoryBusOptions): InMemoryBus {
  const partitionCount = options.partitions ?? 1;
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new PermanentError(`partitions must be a positive integer, got ${partitionCount}`);
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;
  const log = options.log;
  const topics = new Map<string, Topic>();
  /** group → topic → partition → committed offset (the next one to read, as in Kafka). */
  const storage = options.durable ? createBusStorage({ ...options.durable, log }) : null;
  const committed: CommittedOffsets = storage ? storage.readOffsets() : new Map<string, Map<string, Map<number, string>>>();
  const activeMembers = new Set<string>();

  const maxRetained = options.maxRetainedRecords ?? 100_000;
  const retainUnread = options.retainUnread ?? 1_000;
  const recommitMs = options.recommitMs ?? 250;

  /** Where a partition must keep records from: the slowest reading group, or the newest few when none reads it. */
  const keepFromFor = (offsets: CommittedOffsets, topic: string, partition: number, end: number): number => {
    const readers = [...offsets.values()].map((byTopic) => byTopic.get(topic)).filter((c) => c !== undefined);
    if (readers.length === 0) return end - retainUnread;
    return Math.min(...readers.map((c) => Number(c.get(partition) ?? 0)));
  };

  const topicOf = (name: string): Topic => {
    let t = topics.get(name);
    if (!t) {
      t = {
        partitions: Array.from({ length: partitionCount }, (_, p): Partition => {
          if (!storage) return { records: new RecordWindow(0), start: 0, log: null, pending: 0 };
          const opened = storage.openPartition(name, p, (_start, end) => keepFromFor(committed, name, p, end));
          // A commit past the end can only follow a log written without fsync and cut by a power loss.
          for (const byTopic of committed.values()) {
            const c = byTopic.get(name);
            const at = c?.get(p);
            if (c && at !== undefined && Number(at) > opened.log.endOffset()) c.set(p, String(opened.log.endOffset()));
          }
          // Nothing is read yet: what no group committed stays on disk until a consumer asks for it.
          return { records: new RecordWindow(opened.log.endOffset()), start: opened.start, log: opened.log, pending: 0 };
        }),
        waiters: new Set(),
        positions: new Map(),
      };
      topics.set(name, t);
    }
    return t;
  };
  // Topics on disk are opened now, so that their unread records count against the limit at once.
  if (storage) for (const name of storage.storedTopics()) topicOf(name);

  /** Groups that read a topic: those with a commit or a running consumer on it. */
  const readersOf = (topic: string): Map<number, string>[] => {
    const out: Map<number, string>[] = [];
    for (const byTopic of committed.values()) {
      const c = byTopic.get(topic);
      if (c) out.push(c);
    }
    return out;
  };

  /**
   * Moves each partition's start past what every reading group has committed (or, with no reader,
   * all but the newest `retainUnread`), and drops from memory what no consumer needs from it any
   * more: without a log, the records below that start; with one, those every running consumer has
   * taken (the rest of what is uncommitted stays on disk). So memory follows the backlog, not the
   * life of the process.
   */
  const trim = (topic: string, t: Topic): void => {
    const readers = readersOf(topic);
    for (const [p, part] of t.partitions.entries()) {
      const end = part.records.end;
      const keepFrom = readers.length === 0 ? end - retainUnread : Math.min(...readers.map((c) => Number(c.get(p) ?? 0)));
      if (!part.log) {
        part.records.dropBelow(keepFrom);
        part.start = part.records.base;
        continue;
      }
      part.start = Math.max(part.start, Math.min(keepFrom, end));
      let readFrom = end;
      for (const positions of t.positions.values()) readFrom = Math.min(readFrom, positions[p]);
      part.records.dropBelow(readFrom);
    }
  };

  /**
   * Records of the topic that some group reading it has not read yet (plus those being written):
   * what the limit bounds. Without a log, all that memory holds. With one, from the lowest read
   * position: a running consumer's, else the group's commit (it reads from there when it starts).
   */
  const unread = (topic: string, t: Topic): number => {
    if (!storage) return t.partitions.reduce((n, part) => n + part.records.size + part.pending, 0);
    let total = 0;
    for (const [p, part] of t.partitions.entries()) {
      let from = part.records.end;
      for (const [group, byTopic] of committed) {
        const c = byTopic.get(topic);
        if (!c) continue;
        from = Math.min(from, t.positions.get(group)?.[p] ?? Number(c.get(p) ?? 0));
      }
      total += part.records.end - from + part.pending;
    }
    return total;
  };

  const wakeReaders = (t: Topic): void => {
    const waiters = [...t.waiters];
    t.waiters.clear();
    for (const wake of waiters) wake();
  };

  const pushRecord = (topic: string, part: Partition, partition: number, m: OutgoingMessage, timestampMs: number): void => {
    part.records.push({ topic, partition, offset: String(part.records.end), key: m.key, value: m.value, headers: { ...m.headers }, timestampMs });
  };

  /** Adds records; with a durable bus they become readable (and the promise resolves) once fsync'd. */
  const append = (topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
    const t = topicOf(topic);
    trim(topic, t);
    const backlog = unread(topic, t);
    if (backlog + messages.length > maxRetained && readersOf(topic).length > 0) {
      throw new BusFullError(`the in-process bus holds ${backlog} records of ${topic} that its consumers have not ${storage ? 'read' : 'finished'} (limit ${maxRetained}); retry later`);
    }
    const timestampMs = Date.now();
    if (!storage) {
      for (const m of messages) {
        const partition = partitionForKey(m.key, partitionCount);
        pushRecord(topic, t.partitions[partition], partition, m, timestampMs);
      }
      wakeReaders(t);
      return Promise.resolve();
    }
    const items = messages.map((m) => {
      const partition = partitionForKey(m.key, partitionCount);
      const part = t.partitions[partition];
      part.pending += 1;
      return {
        log: part.log!,
        record: { key: m.key, value: m.value, headers: { ...m.headers }, timestampMs },
        onDurable: () => pushRecord(topic, part, partition, m, timestampMs),
      };
    });
    return storage.append(items).finally(() => {
      for (const i of items) t.partitions[partitionForKey(i.record.key, partitionCount)].pending -= 1;
      wakeReaders(t);
    });
  };

  const committedFor = (groupId: string, topic: string): Map<number, string> => {
    let byTopic = committed.get(groupId);
    if (!byTopic) {
      byTopic = new Map<string, Map<number, string>>();
      committed.set(groupId, byTopic);
    }
    let byPartition = byTopic.get(topic);
    if (!byPartition) {
      byPartition = new Map<number, string>();
      byTopic.set(topic, byPartition);
    }
    return byPartition;
  };

  const createProducer = (): Producer => {
    let state: 'new' | 'started' | 'stopped' = 'new';
    return {
      name: 'bus.memory.producer',
      start() {
        state = 'started';
        return Promise.resolve();
      },
      send(topic, messages) {
        if (state !== 'started') return Promise.reject(new PermanentError(`producer is ${state === 'new' ? 'not started' : 'shut down'}`));
        try {
          return append(topic, messages);
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      },
      shutdown() {
        state = 'stopped';
        return Promise.resolve();
      },
    };
  };

  const createConsumer = (consumerOptions: ConsumerOptions): Consumer => {
    const { topic, groupId } = consumerOptions;
    const memberKey = `${groupId}\u0000${topic}`;
    const clog = log.child({ component: 'bus.memory.consumer', topic, groupId });
    const abort = new AbortController();
    let loop: Promise<void> | null = null;
    let stopping: Promise<void> | null = null;

    const run = async (): Promise<void> => {
      const t = topicOf(topic);
      const commits = committedFor(groupId, topic);
      const fromBeginning = consumerOptions.fromBeginning ?? true;
      // Where each partition starts: the group's commit, else the beginning or the current end.
      const positions = t.partitions.map((part, p) => Number(commits.get(p) ?? (fromBeginning ? part.start : part.records.end)));
      // A group that has not committed yet must still hold back trimming from where it starts.
      t.partitions.forEach((_, p) => {
        if (!commits.has(p)) commits.set(p, String(positions[p]));
      });
      // Memory keeps what this consumer has not taken yet (from here on, as it reads).
      t.positions.set(groupId, positions);
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
      const deadLetter = (m: BusMessage, err: unknown): Promise<void> => append(deadLetterTopic(topic), [deadLetterRecord(m, err)]);
      const deferred = createDeferredDelivery({ capacity: consumerOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT, deadLetter, backoff, signal: abort.signal, log: clog });
      const commit = (partition: number, handled: string): void => {
        const own = consumerOptions.committableOffset ? consumerOptions.committableOffset(partition, handled) : handled;
        const allowed = deferred.committable(partition, handled, own);
        const next = nextCommitOffset(handled, allowed, commits.get(partition) ?? null);
        if (next !== null) commits.set(partition, next);
      };
      try {
        let next = 0;
        let diskFailures = 0;
        let sliceStart = performance.now();
        while (!abort.signal.aborted) {
          // Records already here are handled without waiting on I/O, each in a microtask: a backlog
          // of 10,000 would hold the event loop for its whole length. Other work gets a turn between slices.
          if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            sliceStart = performance.now();
          }
          const partition = nextReadyPartition(t, positions, next);
          if (partition !== null && deferred.size() >= (consumerOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT)) {
            // Full of unfinished deferred work: take nothing new until some finishes (or shutdown).
            for (const [p, handled] of lastHandled) commit(p, handled);
            await deferred.room();
            sliceStart = performance.now();
            continue;
          }
          if (partition === null) {
            // Deferred work (or the committableOffset hook) may allow more after the last record: ask again while idle.
            for (const [p, handled] of lastHandled) commit(p, handled);
            // What this consumer has taken need not stay in memory (with a log) while it waits.
            trim(topic, t);
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
            sliceStart = performance.now();
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
            sliceStart = performance.now();
            continue;
          }
          let work: DeferredWork | null = null;
          const outcome = await deliver({
            message,
            handle: async (m) => {
              work = (await consumerOptions.handle(m)) ?? null;
            },
            deadLetter,
            backoff,
            signal: abort.signal,
            log: clog,
          });
          if (outcome === 'stopped') break;
          if (outcome === 'handled' && work) deferred.track(message, work);
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
            .then(() => persistOffsets());
        }
        return stopping;
      },
    };
  };

  /**
   * Writes the committed offsets, then deletes the segments every reading group has committed past
   * (by the offsets just written, so a restart never looks for a deleted record it still needs).
   */
  const persistOffsets = async (): Promise<void> => {
    if (!storage) return;
    const snapshot: CommittedOffsets = new Map([...committed].map(([g, byTopic]) => [g, new Map([...byTopic].map(([topic, c]) => [topic, new Map(c)]))]));
    await storage.writeOffsets(snapshot);
    for (const [name, t] of topics) {
      for (const [p, part] of t.partitions.entries()) await part.log?.deleteBelow(keepFromFor(snapshot, name, p, part.records.end));
      trim(name, t);
    }
  };
  let lastPersisted = '';
  const offsetTimer = storage
    ? setInterval(() => {
        const state = JSON.stringify([...committed].map(([g, byTopic]) => [g, [...byTopic].map(([topic, c]) => [topic, [...c]])]));
        if (state === lastPersisted) return;
        lastPersisted = state;
        persistOffsets().catch((err: unknown) => log.error({ err }, 'could not persist the bus offsets'));
      }, options.durable?.offsetFlushMs ?? 200)
    : null;
  offsetTimer?.unref();

  return {
    kind: 'memory',
    createProducer,
    createConsumer,
    holdings() {
      return [...topics].map(([name, t]) => ({
        topic: name,
        inMemory: t.partitions.reduce((n, part) => n + part.records.size, 0),
        unread: unread(name, t),
        onDiskBytes: t.partitions.reduce((n, part) => n + (part.log?.sizeBytes() ?? 0), 0),
      }));
    },
    ensureTopics() {
      return Promise.resolve();
    },
    async close() {
      if (offsetTimer) clearInterval(offsetTimer);
      if (!storage) return;
      await storage.idle();
      await persistOffsets();
      for (const t of topics.values()) for (const part of t.partitions) await part.log?.close();
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

/** FNV-1a over the key's UTF-8 bytes: stable across runs, so a key always lands on one partition. */
export function partitionForKey(key: string, partitions: number): number {
  if (partitions === 1) return 0;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}
