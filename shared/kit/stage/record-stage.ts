import type { Bus, ConsumerLag, Producer } from '../../adapters/bus/index.ts';
import { createFairLimiter, createKeyedSerialQueue } from '../../runtime/flow/index.ts';
import { createComponent, type Component } from '../../runtime/lifecycle/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';


export interface RecordStageConfig {
  /** The component's name, and its logger's. */
  name: string;
  in: string;
  /** Topics the stage publishes to (created at start). */
  out: readonly string[];
  groupId: string;
  /** Records whose work may be unfinished at once; past that the consumer takes no new record. Default 256. */
  maxInFlight?: number;
  /** Their bytes (values' characters), at most, at once: past that the consumer takes no new record. Unset: no bound. */
  maxInFlightBytes?: number;
  /**
   * With `shareOf`: records whose work runs at once, at most; the other records read wait their
   * turn, shared round robin between shares (see `shareOf`). Default: `maxInFlight`.
   */
  maxRunning?: number;
}

export interface RecordStageDeps<R> {
  bus: Bus;
  log: Logger;
  /**
   * The record's value as the stage takes it; throws (PermanentError) for one that is not: it is
   * dead-lettered. `parsed`: the producer's object of it (BusMessage.parsed), when the bus has it.
   */
  parse: (value: string, parsed?: unknown) => R;
  /** Records with nothing to do (filtered out) are passed over. */
  skip?: (record: R) => boolean;
  /** Records of one key run one after another, in the order they were read; other keys side by side. */
  keyOf: (record: R) => string;
  /**
   * Whose turn a record's work takes (a project): the records read are run `maxRunning` at a time,
   * each share's in read order and the shares in turn, so one share's backlog read ahead delays
   * another's next record by one turn, never by the whole backlog. Unset: all run as read.
   */
  shareOf?: (record: R) => string;
  /** One attempt at the record's work, run after the handler returned; called again on a retriable failure. */
  run: (record: R) => Promise<void>;
  /** Started before the consumer, stopped after it: what `run` publishes with. */
  producer?: Producer;
  /** After the consumer started (a background sweep). */
  started?: () => void;
  /** Before the consumer stops. */
  stopping?: () => Promise<void>;
  /** After the consumer stopped (all work in hand settled), before the producer stops: flush what `run` batched. */
  drained?: () => Promise<void>;
  onLag?: (lag: ConsumerLag) => void;
}

/**
 * A stage of one record in, deferred work out (the scorer, the session router). The handler only
 * parses; the work runs afterwards, many records at once, records of one key in order. The bus
 * owns the rest (shared/adapters/bus/contract.ts, DeferredWork): retries with backoff, dead-letters what
 * fails for good, and commits a partition only below its oldest record whose work is neither done
 * nor dead-lettered, so a crash re-reads every record not finished (at least once).
 */
export function createRecordStage<R>(config: RecordStageConfig, deps: RecordStageDeps<R>): Component {
  const log = deps.log.child({ component: config.name });
  const order = createKeyedSerialQueue();
  const { shareOf } = deps;
  const fair = shareOf ? createFairLimiter(config.maxRunning ?? config.maxInFlight ?? 256) : null;
  const consumer = deps.bus.createConsumer({
    topic: config.in,
    groupId: config.groupId,
    ...(config.maxInFlight !== undefined ? { maxInFlight: config.maxInFlight } : {}),
    ...(config.maxInFlightBytes !== undefined ? { maxInFlightBytes: config.maxInFlightBytes } : {}),
    // A throw (a record that is not one) rejects, which sends the record to the dead-letter topic.
    handle: (message) => {
      let record: R;
      try {
        record = deps.parse(message.value, message.parsed);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      if (deps.skip?.(record)) return Promise.resolve();
      // The turn is taken now, in the order records are read; the work waits for it.
      const turn = order.turn(deps.keyOf(record));
      return Promise.resolve({
        run: async () => {
          // The key's turn first, then a slot: a slot is never held by work waiting for an earlier record.
          await turn.ready;
          if (!fair || !shareOf) return deps.run(record);
          const release = await fair.acquire(shareOf(record));
          try {
            await deps.run(record);
          } finally {
            release();
          }
        },
        // A turn ends when the bus is done with the record (finished, dead-lettered, or left for a restart).
        settled: turn.release,
      });
    },
    ...(deps.onLag ? { onLag: deps.onLag } : {}),
  });

  return createComponent(config.name, {
    start: async () => {
      await deps.bus.ensureTopics([config.in, ...config.out]);
      await deps.producer?.start();
      await consumer.start();
      deps.started?.();
      log.info({ in: config.in, out: config.out }, 'stage started');
    },
    stop: async () => {
      await deps.stopping?.();
      // Work read ahead that has not had its turn is not started now: it stays uncommitted, read again.
      fair?.close();
      // Waits for the work in hand; the bus commits below the oldest record left unfinished.
      await consumer.shutdown();
      await deps.drained?.();
      await deps.producer?.shutdown();
    },
  });
}
