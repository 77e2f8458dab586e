import { PermanentError, RetriableError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { nextCommitOffset } from './commit-offset.ts';
import type { Bus, BusMessage, Consumer, ConsumerOptions, OutgoingMessage, Producer } from './contract.ts';
import { deadLetterRecord, deadLetterTopic } from './dead-letter.ts';
import { deliver } from './deliver.ts';

export interface InMemoryBusOptions {
  log: Logger;
  /** Partitions per topic; keys hash onto them, so one key keeps its order. Default 1. */
  partitions?: number;
  /** Backoff between retries of a retriable handler failure. */
  retryBackoff?: BackoffPolicy;
  /**
   * Records a topic may hold that some consumer group still needs (not yet committed by every
   * group that reads it). A send beyond it is refused with a BusFullError, which the collector
   * answers 429 + Retry-After: backpressure instead of unbounded memory. Default 100,000.
   */
  maxRetainedRecords?: number;
  /** Records kept of a topic that no group reads (nobody will ask for them). Default 1,000. */
  retainUnread?: number;
}

/** The in-process bus is full: its consumers are behind. Retriable: retry after they catch up. */
export class BusFullError extends RetriableError {}

interface Partition {
  /** Offset of records[0]: records below it were committed by every group and dropped. */
  base: number;
  records: BusMessage[];
}

interface Topic {
  partitions: Partition[];
  /** Resolvers of consumers idle on this topic; a send wakes them all. */
  waiters: Set<() => void>;
}

/**
 * The Kafka contract inside one process, for the embedded mode and tests: same partitioning by key,
 * per-partition order, consumer groups with committed offsets, retries and `<topic>.dlq`.
 * Records live in memory only; a record is dropped once every group reading its topic committed
 * it, and a topic whose readers fall too far behind refuses sends (BusFullError) until they catch up.
 */
/** Longest run of record handling in one consumer before it lets the event loop serve others. */
const YIELD_AFTER_MS = 10;
/** How often a consumer commits what became committable since its last record. */
const COMMIT_INTERVAL_MS = 200;

export function createInMemoryBus(options: InMemoryBusOptions): Bus {
  const partitionCount = options.partitions ?? 1;
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new PermanentError(`partitions must be a positive integer, got ${partitionCount}`);
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;
  const log = options.log;
  const topics = new Map<string, Topic>();
  /** group → topic → partition → committed offset (the next one to read, as in Kafka). */
  const committed = new Map<string, Map<string, Map<number, string>>>();
  const activeMembers = new Set<string>();

  const maxRetained = options.maxRetainedRecords ?? 100_000;
  const retainUnread = options.retainUnread ?? 1_000;

  const topicOf = (name: string): Topic => {
    let t = topics.get(name);
    if (!t) {
      t = { partitions: Array.from({ length: partitionCount }, () => ({ base: 0, records: [] })), waiters: new Set() };
      topics.set(name, t);
    }
    return t;
  };

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
   * Drops what every reading group has committed (or, with no reader, all but the newest
   * `retainUnread`), so memory follows the backlog, not the life of the process. Dropping happens
   * in chunks: shifting an array's head costs its length.
   */
  const trim = (topic: string, t: Topic): void => {
    const readers = readersOf(topic);
    for (const [p, part] of t.partitions.entries()) {
      const end = part.base + part.records.length;
      const keepFrom = readers.length === 0 ? end - retainUnread : Math.min(...readers.map((c) => Number(c.get(p) ?? 0)));
      const drop = keepFrom - part.base;
      if (drop >= 1024 || (drop > 0 && drop === part.records.length)) {
        part.records.splice(0, drop);
        part.base += drop;
      }
    }
  };

  const retained = (t: Topic): number => t.partitions.reduce((n, p) => n + p.records.length, 0);

  const append = (topic: string, messages: readonly OutgoingMessage[]): void => {
    const t = topicOf(topic);
    trim(topic, t);
    if (retained(t) + messages.length > maxRetained && readersOf(topic).length > 0) {
      throw new BusFullError(`the in-process bus holds ${retained(t)} records of ${topic} that its consumers have not finished (limit ${maxRetained}); retry later`);
    }
    for (const m of messages) {
      const partition = partitionForKey(m.key, partitionCount);
      const part = t.partitions[partition];
      part.records.push({
        topic,
        partition,
        offset: String(part.base + part.records.length),
        key: m.key,
        value: m.value,
        headers: { ...m.headers },
        timestampMs: Date.now(),
      });
    }
    const waiters = [...t.waiters];
    t.waiters.clear();
    for (const wake of waiters) wake();
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
          append(topic, messages);
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
        return Promise.resolve();
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
    /** Last handled offset per partition, for commits that become possible after the fact. */
    const lastHandled = new Map<number, string>();
    let commitTimer: NodeJS.Timeout | null = null;

    const commitHandled = (partition: number, offset: string): void => {
      const commits = committedFor(groupId, topic);
      const allowed = consumerOptions.committableOffset ? consumerOptions.committableOffset(partition, offset) : offset;
      const commit = nextCommitOffset(offset, allowed, commits.get(partition) ?? null);
      if (commit !== null) commits.set(partition, commit);
    };

    const run = async (): Promise<void> => {
      const t = topicOf(topic);
      const commits = committedFor(groupId, topic);
      const fromBeginning = consumerOptions.fromBeginning ?? true;
      // Where each partition starts: the group's commit, else the beginning or the current end.
      const positions = t.partitions.map((part, p) => Number(commits.get(p) ?? (fromBeginning ? part.base : part.base + part.records.length)));
      // A group that has not committed yet must still hold back trimming from where it starts.
      t.partitions.forEach((_, p) => {
        if (!commits.has(p)) commits.set(p, String(positions[p]));
      });
      let next = 0;
      let sliceStart = performance.now();
      while (!abort.signal.aborted) {
        // Records already here are handled without waiting on I/O, each in a microtask: a backlog
        // of 10,000 would hold the event loop for its whole length. Other work gets a turn between slices.
        if (performance.now() - sliceStart >= YIELD_AFTER_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        const partition = nextReadyPartition(t, positions, next);
        if (partition === null) {
          await new Promise<void>((resolve) => {
            const wake = (): void => {
              abort.signal.removeEventListener('abort', wake);
              t.waiters.delete(wake);
              resolve();
            };
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
        if (positions[partition] < part.base) positions[partition] = part.base;
        const message = part.records[positions[partition] - part.base];
        const outcome = await deliver({
          message,
          handle: (m) => consumerOptions.handle(m),
          deadLetter: (m, err) => {
            append(deadLetterTopic(topic), [deadLetterRecord(m, err)]);
            return Promise.resolve();
          },
          backoff,
          signal: abort.signal,
          log: clog,
        });
        if (outcome === 'stopped') break;
        positions[partition] = positions[partition] + 1;
        lastHandled.set(partition, message.offset);
        commitHandled(partition, message.offset);
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
        // A handler may finish its work after it returned (the assembler publishes a trace later):
        // commit what became committable even when no new record arrives, or a full backlog that
        // waits on that commit would refuse the very records that could move it.
        commitTimer = setInterval(() => {
          for (const [partition, offset] of lastHandled) commitHandled(partition, offset);
        }, COMMIT_INTERVAL_MS);
        commitTimer.unref();
        loop = run().catch((err: unknown) => {
          clog.error({ err }, 'consumer stopped on an error');
        });
        return Promise.resolve();
      },
      shutdown() {
        if (!stopping) {
          if (commitTimer) clearInterval(commitTimer);
          abort.abort();
          stopping = (loop ?? Promise.resolve()).finally(() => {
            if (loop) activeMembers.delete(memberKey);
          });
        }
        return stopping;
      },
    };
  };

  return {
    kind: 'memory',
    createProducer,
    createConsumer,
    ensureTopics() {
      return Promise.resolve();
    },
  };
}

function nextReadyPartition(topic: Topic, positions: number[], from: number): number | null {
  const n = topic.partitions.length;
  for (let i = 0; i < n; i += 1) {
    const p = (from + i) % n;
    const part = topic.partitions[p];
    if (positions[p] < part.base + part.records.length) return p;
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
