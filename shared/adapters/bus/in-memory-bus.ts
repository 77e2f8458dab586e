import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import type { Bus, Producer, ProducerOptions } from './contract.ts';
import { createBusStorage, type BusStorageOptions } from './bus-storage.ts';
import { createMemoryConsumer } from './memory-consumer.ts';
import { BusFullError, createMemoryTopics, type GroupLag, type TopicHoldings } from './memory-topics.ts';

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
  /**
   * Backpressure by time: a producer created with `refuseWhenBehind` has its sends to that topic
   * refused (BusFullError) while any running consumer of any topic has left a record unread for
   * longer than this. Unset: only the bound in records applies.
   */
  maxLagMs?: number;
}

/** The in-process bus; `close()` writes the committed offsets and closes its log files. */
export interface InMemoryBus extends Bus {
  /** What each topic holds in memory and on disk (for metrics and tests). */
  holdings(): TopicHoldings[];
  /** Per topic and running consumer group: how long its oldest unread record has waited. */
  lags(): GroupLag[];
  close(): Promise<void>;
}

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
 * What is kept lives in memory-topics.ts, the consumer's read loop in memory-consumer.ts.
 */
export function createInMemoryBus(options: InMemoryBusOptions): InMemoryBus {
  const partitionCount = options.partitions ?? 1;
  if (!Number.isInteger(partitionCount) || partitionCount < 1) throw new PermanentError(`partitions must be a positive integer, got ${partitionCount}`);
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;
  const log = options.log;
  const storage = options.durable ? createBusStorage({ ...options.durable, log }) : null;
  const topics = createMemoryTopics({ partitionCount, storage, maxRetained: options.maxRetainedRecords ?? 100_000, retainUnread: options.retainUnread ?? 1_000 });
  const activeMembers = new Set<string>();
  const recommitMs = options.recommitMs ?? 250;

  /** Throws a BusFullError when some running consumer has left a record unread for longer than `maxLagMs`. */
  const checkLag = (maxLagMs: number): void => {
    let worst: GroupLag | null = null;
    for (const l of topics.lags(Date.now())) if (l.lagMs > (worst?.lagMs ?? maxLagMs)) worst = l;
    if (worst) throw new BusFullError(`consumer group ${worst.group} has not read a record of ${worst.topic} written ${worst.lagMs} ms ago (limit ${maxLagMs} ms, TRACECHECK_MAX_LAG_MS); retry later`);
  };

  const createProducer = (producerOptions?: ProducerOptions): Producer => {
    const lagBound = producerOptions?.refuseWhenBehind && options.maxLagMs !== undefined ? { topic: producerOptions.refuseWhenBehind.topic, maxLagMs: options.maxLagMs } : null;
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
          if (lagBound && topic === lagBound.topic) checkLag(lagBound.maxLagMs);
          return topics.append(topic, messages);
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

  let lastPersisted = '';
  const offsetTimer = storage
    ? setInterval(() => {
        const state = topics.committedState();
        if (state === lastPersisted) return;
        lastPersisted = state;
        topics.persistOffsets().catch((err: unknown) => log.error({ err }, 'could not persist the bus offsets'));
      }, options.durable?.offsetFlushMs ?? 200)
    : null;
  offsetTimer?.unref();

  return {
    kind: 'memory',
    createProducer,
    createConsumer: (consumerOptions) => createMemoryConsumer({ topics, consumerOptions, backoff, recommitMs, activeMembers, log }),
    holdings: () => topics.holdings(),
    lags: () => topics.lags(Date.now()),
    ensureTopics() {
      return Promise.resolve();
    },
    async close() {
      if (offsetTimer) clearInterval(offsetTimer);
      if (!storage) return;
      await storage.idle();
      await topics.persistOffsets();
      await topics.closeLogs();
    },
  };
}
