import type { Kafka, Consumer as KafkaConsumer, EachBatchPayload, IHeaders, KafkaMessage, Producer as KafkaProducer } from 'kafkajs';
import { DEFAULT_LAG_INTERVAL_MS } from '../../runtime/config/index.ts';
import { RetriableError } from '../../runtime/errors/index.ts';
import { createSerialQueue, linkAbort } from '../../runtime/flow/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { sleepUnlessAborted, type BackoffPolicy } from './backoff.ts';
import { nextCommitOffset } from './commit-offset.ts';
import type { BusMessage, Consumer, ConsumerOptions, OutgoingMessage } from './contract.ts';
import { writeDeadLetters } from './dead-letter.ts';
import { createDeferredDelivery, DEFAULT_MAX_IN_FLIGHT } from './deferred-delivery.ts';
import type { KafkaBusOptions } from './kafka-bus.ts';
import { toBusError } from './kafka-errors.ts';
import { createLagMonitor } from './kafka-lag-monitor.ts';
import { createKafkaReplay } from './kafka-replay.ts';

/** How often a held consumer asks `holdReading` again. */
const HOLD_POLL_MS = 50;

export interface KafkaConsumerDeps {
  kafka: Kafka;
  options: KafkaBusOptions;
  consumerOptions: ConsumerOptions;
  backoff: BackoffPolicy;
  log: Logger;
  newProducer: () => KafkaProducer;
  sendWith: (producer: KafkaProducer, topic: string, messages: readonly OutgoingMessage[]) => Promise<void>;
}

/**
 * A consumer of the Kafka bus: handles each fetched batch record by record through `deliver`,
 * tracks deferred work, commits by hand what the handler and the deferred work allow (in order,
 * never backwards), keeps its group membership alive through long handlers, and dead-letters
 * through a producer of its own.
 */
export function createKafkaConsumer(deps: KafkaConsumerDeps): Consumer {
  const { kafka, options, consumerOptions } = deps;
  const { topic, groupId } = consumerOptions;
  const log = deps.log.child({ component: 'bus.kafka.consumer', topic, groupId });
  const consumer: KafkaConsumer = kafka.consumer({
    groupId,
    sessionTimeout: options.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: options.heartbeatIntervalMs ?? 3_000,
    allowAutoTopicCreation: true,
    maxWaitTimeInMs: options.maxFetchWaitMs ?? 1_000,
  });
  const dlqProducer = deps.newProducer();
  const commitIntervalMs = options.commitIntervalMs ?? 5_000;
  const abort = new AbortController();
  /** Last committed offset per partition (next to read), so a commit never repeats or goes back. */
  const committed = new Map<number, string>();
  let state: 'new' | 'started' | 'stopped' = 'new';
  let stopping: Promise<void> | null = null;
  /** Last handled offset per partition, for the periodic commit. */
  const lastHandledBy = new Map<number, string>();
  let commitTimer: NodeJS.Timeout | null = null;
  /** Partitions of `topic` assigned to this member at the last rebalance. */
  let assigned: number[] = [];
  const replayer = consumerOptions.replay
    ? createKafkaReplay({ kafka, topic, replay: consumerOptions.replay, toBusMessage: (partition, raw) => toBusMessage(topic, partition, raw), log })
    : null;
  // After a rebalance another member may have committed less than we remember for a partition.
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    committed.clear();
    lastHandledBy.clear();
    replayer?.reset();
    assigned = [...((event.payload.memberAssignment as Record<string, number[] | undefined>)[topic] ?? [])];
  });
  const maxInFlight = consumerOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const deadLetter = (m: BusMessage, err: unknown): Promise<void> => writeDeadLetters((t, records) => deps.sendWith(dlqProducer, t, records), [m], err);
  const deferred = createDeferredDelivery({ capacity: maxInFlight, ...(consumerOptions.maxInFlightBytes !== undefined ? { capacityBytes: consumerOptions.maxInFlightBytes } : {}), deadLetter, backoff: deps.backoff, signal: abort.signal, log });
  const reportLag = consumerOptions.onLag?.bind(consumerOptions);
  const lagMonitor = reportLag ? createLagMonitor({ kafka, topic, groupId, assigned: () => assigned, onLag: reportLag, intervalMs: options.lagIntervalMs ?? DEFAULT_LAG_INTERVAL_MS, log }) : null;

  const commit = async (partition: number, lastHandled: string): Promise<void> => {
    const own = consumerOptions.committableOffset ? consumerOptions.committableOffset(partition, lastHandled) : lastHandled;
    const allowed = deferred.committable(partition, lastHandled, own);
    const offset = nextCommitOffset(lastHandled, allowed, committed.get(partition) ?? null);
    if (offset === null) return;
    try {
      await consumer.commitOffsets([{ topic, partition, offset }]);
      committed.set(partition, offset);
    } catch (err) {
      // Lost the partition in a rebalance: its next owner reads from the last commit. At least once.
      log.warn({ err, partition, offset }, 'offset commit failed; records after the last commit will be read again');
    }
  };

  // A batch's closing commit is sent without holding up the next fetch (it is a broker round trip,
  // often tens of ms); commits still go one at a time, in order, and shutdown waits for them.
  const commits = createSerialQueue();
  const commitInOrder = (partition: number, lastHandled: string): Promise<void> =>
    commits.run(() => commit(partition, lastHandled)).catch((err: unknown) => log.error({ err, partition }, 'offset commit failed'));

  const eachBatch = async (payload: EachBatchPayload): Promise<void> => {
    const { batch } = payload;
    const partition = batch.partition;
    let lastHandled: string | null = null;
    let lastCommitAt = Date.now();
    let heartbeatError: Error | null = null;
    // Ends a retry loop early when shutting down or when the partition may have moved on.
    // (Not AbortSignal.any: on Node 20 it leaves a WeakRef on the shutdown signal for every batch.)
    const lost = linkAbort(abort.signal);
    const { signal } = lost;
    // A handler may run for minutes (retries, a slow judge): keep the group membership alive.
    const beat = setInterval(() => {
      payload.heartbeat().catch((err: unknown) => {
        heartbeatError ??= err instanceof Error ? err : new Error(String(err));
        lost.abort();
      });
    }, Math.max(500, Math.floor((options.heartbeatIntervalMs ?? 3_000) / 2)));
    try {
      // Records below the commit handed back as history (ConsumerOptions.replay), or a seek back to them.
      const step = replayer ? await replayer.step(partition, batch.messages) : { replayed: 0 };
      if ('seek' in step) {
        // kafkajs drops this batch as stale and fetches from there; nothing of it is resolved.
        consumer.seek({ topic, partition, offset: step.seek });
        return;
      }
      const { messages } = batch;
      // Resolved so that the fetch moves past them; never committed (nothing is handled).
      for (let i = 0; i < step.replayed; i += 1) payload.resolveOffset(messages[i].offset);
      for (let i = step.replayed; i < messages.length; i += 1) {
        const raw = messages[i];
        if (deferred.full()) {
          // Full of unfinished deferred work: fetch nothing more until some finishes (heartbeats go on).
          if (lastHandled !== null) await commitInOrder(partition, lastHandled);
          await deferred.room();
        }
        if (consumerOptions.holdReading?.()) {
          // Held (the handler's side holds all it may): read nothing until it lets go.
          if (lastHandled !== null) await commitInOrder(partition, lastHandled);
          while (consumerOptions.holdReading() && payload.isRunning() && !payload.isStale() && (await sleepUnlessAborted(HOLD_POLL_MS, signal)));
        }
        if (!payload.isRunning() || payload.isStale() || signal.aborted) break;
        const message = toBusMessage(batch.topic, partition, raw);
        const outcome = await deferred.deliver(message, (m) => consumerOptions.handle(m), signal);
        if (outcome === 'stopped') break;
        payload.resolveOffset(raw.offset);
        lastHandled = raw.offset;
        lastHandledBy.set(partition, raw.offset);
        if (Date.now() - lastCommitAt >= commitIntervalMs) {
          await commitInOrder(partition, lastHandled);
          lastCommitAt = Date.now();
        }
      }
    } finally {
      clearInterval(beat);
      lost.release();
    }
    if (lastHandled !== null) {
      const committing = commitInOrder(partition, lastHandled);
      // On shutdown, disconnect() waits for this batch: its commit lands before the consumer leaves.
      if (abort.signal.aborted || !payload.isRunning()) await committing;
    }
    // Rethrown so kafkajs rejoins the group; the partition may now belong to another member.
    // (The cast undoes TypeScript's narrowing: the interval callback may have set it.)
    const lostMembership = heartbeatError as Error | null;
    if (lostMembership) throw lostMembership;
  };

  return {
    name: `bus.kafka.consumer:${topic}`,
    async start() {
      if (state !== 'new') return;
      state = 'started';
      try {
        await Promise.all([consumer.connect(), dlqProducer.connect()]);
        await consumer.subscribe({ topics: [topic], fromBeginning: consumerOptions.fromBeginning ?? true });
        const joined = waitForJoin(consumer, options.joinTimeoutMs ?? 60_000);
        await consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
          eachBatch,
        });
        await joined;
        // A handler may finish its work after it returned (committableOffset holds the commit
        // back meanwhile): commit what became committable even when no new record arrives.
        commitTimer = setInterval(() => {
          for (const [partition, last] of lastHandledBy) void commitInOrder(partition, last);
        }, commitIntervalMs);
        commitTimer.unref();
        lagMonitor?.start();
        log.info('consumer joined its group');
      } catch (err) {
        await shutdown();
        throw toBusError(err, `starting a consumer of ${topic} in group ${groupId}`);
      }
    },
    shutdown,
  };

  function shutdown(): Promise<void> {
    if (!stopping) {
      const wasStarted = state === 'started';
      state = 'stopped';
      abort.abort();
      if (commitTimer) clearInterval(commitTimer);
      stopping = wasStarted
        ? (async () => {
            await lagMonitor?.shutdown();
            await replayer?.shutdown();
            // Deferred work in hand finishes (retry waits end at once) and commits what it allows;
            // what is unfinished stays uncommitted.
            await deferred.drained();
            for (const [partition, last] of lastHandledBy) await commitInOrder(partition, last);
            // disconnect() waits for the batch in hand, which commits what it handled.
            await consumer.disconnect().catch((err: unknown) => log.warn({ err }, 'consumer disconnect failed'));
            await dlqProducer.disconnect().catch((err: unknown) => log.warn({ err }, 'dead-letter producer disconnect failed'));
          })()
        : Promise.resolve();
    }
    return stopping;
  }
}

/** Resolves on the first group join; rejects with a RetriableError after `timeoutMs` or a crash. */
function waitForJoin(consumer: KafkaConsumer, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const removers: Array<() => void> = [];
    const done = (err?: Error): void => {
      clearTimeout(timer);
      for (const remove of removers) remove();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new RetriableError(`no group assignment within ${timeoutMs} ms`)), timeoutMs);
    removers.push(consumer.on(consumer.events.GROUP_JOIN, () => done()));
    removers.push(
      consumer.on(consumer.events.CRASH, (event) => {
        const payload = event.payload as { error: Error; restart: boolean };
        if (!payload.restart) done(payload.error);
      }),
    );
  });
}

function toBusMessage(topic: string, partition: number, raw: KafkaMessage): BusMessage {
  return {
    topic,
    partition,
    offset: raw.offset,
    key: raw.key?.toString('utf8') ?? '',
    value: raw.value?.toString('utf8') ?? '',
    headers: headersToStrings(raw.headers),
    timestampMs: Number(raw.timestamp),
  };
}

function headersToStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) {
    // Kafka allows a header name to repeat; as in the Java client's lastHeader(), the last one wins.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = Buffer.isBuffer(last) ? last.toString('utf8') : String(last);
  }
  return out;
}
