import { Kafka, Partitioners, type Consumer as KafkaConsumer, type EachBatchPayload, type IHeaders, type KafkaMessage, type Producer as KafkaProducer } from 'kafkajs';
import { PermanentError, RetriableError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { nextCommitOffset } from './commit-offset.ts';
import { computeConsumerLag, type ConsumerLag } from './consumer-lag.ts';
import type { Bus, BusMessage, Consumer, ConsumerOptions, DeferredWork, OutgoingMessage, Producer } from './contract.ts';
import { deadLetterRecord, deadLetterTopic } from './dead-letter.ts';
import { deliver } from './deliver.ts';
import { createDeferredDelivery, DEFAULT_MAX_IN_FLIGHT } from './deferred-delivery.ts';
import { toBusError } from './kafka-errors.ts';
import { createKafkaLogCreator, kafkaLogLevel } from './kafka-log.ts';

export interface KafkaBusOptions {
  brokers: readonly string[];
  clientId: string;
  log: Logger;
  /** Per TCP connect attempt. Default 3 s. */
  connectionTimeoutMs?: number;
  /** Per request. Default 30 s (a produce with acks=all waits for the in-sync replicas). */
  requestTimeoutMs?: number;
  /** kafkajs's own retries of a failed request before it gives up and we classify the error. */
  clientRetries?: number;
  /** Backoff between retries of a handler that failed with a retriable error. */
  retryBackoff?: BackoffPolicy;
  /** Partitions of topics made by ensureTopics. Default 3. */
  topicPartitions?: number;
  /** Replication factor of topics made by ensureTopics. Default 1 (single broker). */
  replicationFactor?: number;
  /** Idempotent producer (no duplicates from its own retries). Default true. */
  idempotent?: boolean;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Partitions a consumer handles at the same time (each still in order). Default 1. */
  partitionsConsumedConcurrently?: number;
  /** Commit at least this often during a long batch, besides at the end of every batch. */
  commitIntervalMs?: number;
  /**
   * Longest wait of an idle fetch. Default 1 s: shutdown waits for the fetch in flight, and new
   * records return at once anyway.
   */
  maxFetchWaitMs?: number;
  /** How long a consumer's start waits for its first group assignment. Default 60 s. */
  joinTimeoutMs?: number;
  /** How often a consumer with `onLag` measures its lag. Default 5 s. */
  lagIntervalMs?: number;
}

/**
 * The Bus on Kafka through kafkajs, which stays behind this module (it is in maintenance mode).
 * `ensureTopics` also creates each topic's `<topic>.dlq`, for clusters without auto-creation.
 *
 * Delivery is at least once. Offsets are committed by hand, never automatically: after a record is
 * handled (or dead-lettered) the consumer commits min(committableOffset, last handled) + 1, since
 * Kafka stores the NEXT offset to read. A record whose handler is still retrying, or that was in
 * hand at a crash, is therefore read again by whoever owns its partition next.
 */
export function createKafkaBus(options: KafkaBusOptions): Bus {
  const log = options.log;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout,
    // Bounded: with the broker down, connect and send fail after about 20 s instead of hanging.
    retry: { retries: options.clientRetries ?? 5, initialRetryTime: 300, maxRetryTime: 10_000 },
    logLevel: kafkaLogLevel(log),
    logCreator: createKafkaLogCreator(log.child({ component: 'kafkajs' })),
  });
  const backoff = options.retryBackoff ?? DEFAULT_BACKOFF;
  const idempotent = options.idempotent ?? true;

  const newProducer = (): KafkaProducer =>
    kafka.producer({
      // The Java client's murmur2 partitioner: a key lands where Java producers would put it too.
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent,
      // One request in flight per broker keeps retried batches in order.
      maxInFlightRequests: idempotent ? 1 : undefined,
      allowAutoTopicCreation: true,
      retry: { retries: options.clientRetries ?? 5, initialRetryTime: 300, maxRetryTime: 10_000 },
    });

  const sendWith = async (producer: KafkaProducer, topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
    if (messages.length === 0) return;
    try {
      // acks -1: resolved only when every in-sync replica has the records. No compression: the
      // gzip codec of kafkajs costs several times the send itself.
      await producer.send({
        topic,
        acks: -1,
        timeout: requestTimeout,
        messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers ? { ...m.headers } : undefined })),
      });
    } catch (err) {
      throw toBusError(err, `sending ${messages.length} record(s) to ${topic}`);
    }
  };

  const createProducer = (): Producer => {
    const producer = newProducer();
    let state: 'new' | 'starting' | 'started' | 'stopped' = 'new';
    let stopping: Promise<void> | null = null;
    return {
      name: 'bus.kafka.producer',
      async start() {
        if (state !== 'new') return;
        state = 'starting';
        try {
          await producer.connect();
        } catch (err) {
          state = 'new';
          throw toBusError(err, `connecting a producer to ${options.brokers.join(',')}`);
        }
        state = 'started';
      },
      send(topic, messages) {
        if (state !== 'started') return Promise.reject(new PermanentError(`producer is ${state === 'stopped' ? 'shut down' : 'not started'}`));
        return sendWith(producer, topic, messages);
      },
      shutdown() {
        if (!stopping) {
          const wasStarted = state === 'started';
          state = 'stopped';
          stopping = wasStarted ? producer.disconnect().catch((err: unknown) => log.warn({ err }, 'producer disconnect failed')) : Promise.resolve();
        }
        return stopping;
      },
    };
  };

  const createConsumer = (consumerOptions: ConsumerOptions): Consumer =>
    createKafkaConsumer({ kafka, options, consumerOptions, backoff, log, newProducer, sendWith });

  return {
    kind: 'kafka',
    createProducer,
    createConsumer,
    async ensureTopics(topics) {
      if (topics.length === 0) return;
      const admin = kafka.admin();
      try {
        await admin.connect();
        const existing = new Set(await admin.listTopics());
        const wanted = topics.flatMap((t) => (t.endsWith('.dlq') ? [t] : [t, deadLetterTopic(t)]));
        const missing = [...new Set(wanted)].filter((t) => !existing.has(t));
        if (missing.length === 0) return;
        await admin.createTopics({
          waitForLeaders: true,
          timeout: requestTimeout,
          topics: missing.map((topic) => ({
            topic,
            numPartitions: options.topicPartitions ?? 3,
            replicationFactor: options.replicationFactor ?? 1,
          })),
        });
        log.info({ topics: missing }, 'created topics');
      } catch (err) {
        throw toBusError(err, `creating topics ${topics.join(', ')}`);
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
  };
}

interface ConsumerDeps {
  kafka: Kafka;
  options: KafkaBusOptions;
  consumerOptions: ConsumerOptions;
  backoff: BackoffPolicy;
  log: Logger;
  newProducer: () => KafkaProducer;
  sendWith: (producer: KafkaProducer, topic: string, messages: readonly OutgoingMessage[]) => Promise<void>;
}

function createKafkaConsumer(deps: ConsumerDeps): Consumer {
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
  // After a rebalance another member may have committed less than we remember for a partition.
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    committed.clear();
    lastHandledBy.clear();
    assigned = [...((event.payload.memberAssignment as Record<string, number[] | undefined>)[topic] ?? [])];
  });
  const maxInFlight = consumerOptions.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const deadLetter = (m: BusMessage, err: unknown): Promise<void> => deps.sendWith(dlqProducer, deadLetterTopic(topic), [deadLetterRecord(m, err)]);
  const deferred = createDeferredDelivery({ capacity: maxInFlight, deadLetter, backoff: deps.backoff, signal: abort.signal, log });
  const reportLag = consumerOptions.onLag?.bind(consumerOptions);
  const lagMonitor = reportLag ? createLagMonitor({ kafka, topic, groupId, assigned: () => assigned, onLag: reportLag, intervalMs: options.lagIntervalMs ?? 5_000, log }) : null;

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
  let commits: Promise<void> = Promise.resolve();
  const commitInOrder = (partition: number, lastHandled: string): Promise<void> =>
    (commits = commits.then(() => commit(partition, lastHandled)).catch((err: unknown) => log.error({ err, partition }, 'offset commit failed')));

  const eachBatch = async (payload: EachBatchPayload): Promise<void> => {
    const { batch } = payload;
    const partition = batch.partition;
    let lastHandled: string | null = null;
    let lastCommitAt = Date.now();
    let heartbeatError: Error | null = null;
    // Ends a retry loop early when shutting down or when the partition may have moved on.
    const lost = new AbortController();
    const signal = AbortSignal.any([abort.signal, lost.signal]);
    // A handler may run for minutes (retries, a slow judge): keep the group membership alive.
    const beat = setInterval(() => {
      payload.heartbeat().catch((err: unknown) => {
        heartbeatError ??= err instanceof Error ? err : new Error(String(err));
        lost.abort();
      });
    }, Math.max(500, Math.floor((options.heartbeatIntervalMs ?? 3_000) / 2)));
    try {
      for (const raw of batch.messages) {
        if (deferred.size() >= maxInFlight) {
          // Full of unfinished deferred work: fetch nothing more until some finishes (heartbeats go on).
          if (lastHandled !== null) await commitInOrder(partition, lastHandled);
          await deferred.room();
        }
        if (!payload.isRunning() || payload.isStale() || signal.aborted) break;
        const message = toBusMessage(batch.topic, partition, raw);
        let work: DeferredWork | null = null;
        const outcome = await deliver({
          message,
          handle: async (m) => {
            work = (await consumerOptions.handle(m)) ?? null;
          },
          deadLetter,
          backoff: deps.backoff,
          signal,
          log,
        });
        if (outcome === 'stopped') break;
        if (outcome === 'handled' && work) deferred.track(message, work);
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

/**
 * Measures a consumer's lag every `intervalMs` through an admin client of its own: the topic's
 * watermarks against the group's committed offsets, on the partitions assigned to this member (so
 * the members' figures add up to the group's). A failed measurement reports the last known
 * partitions with the error; measurements never overlap.
 */
function createLagMonitor(deps: { kafka: Kafka; topic: string; groupId: string; assigned: () => readonly number[]; onLag: (lag: ConsumerLag) => void; intervalMs: number; log: Logger }) {
  // Few retries: a broker that is down shows as an error in the next report, not after minutes.
  const admin = deps.kafka.admin({ retry: { retries: 1, initialRetryTime: 300 } });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let connected = false;
  let last: ConsumerLag | null = null;
  const measure = async (): Promise<void> => {
    try {
      if (!connected) {
        await admin.connect();
        connected = true;
      }
      const [topicOffsets, groupOffsets] = await Promise.all([admin.fetchTopicOffsets(deps.topic), admin.fetchOffsets({ groupId: deps.groupId, topics: [deps.topic] })]);
      const committed = new Map((groupOffsets.find((t) => t.topic === deps.topic)?.partitions ?? []).map((p) => [p.partition, p.offset]));
      last = computeConsumerLag({ topic: deps.topic, groupId: deps.groupId, assigned: deps.assigned(), topicOffsets, committed, nowMs: Date.now() });
      deps.onLag(last);
    } catch (err) {
      deps.log.debug({ err }, 'measuring consumer lag failed');
      const error = toBusError(err, `measuring the lag of group ${deps.groupId} on ${deps.topic}`).message;
      deps.onLag({ ...(last ?? { topic: deps.topic, groupId: deps.groupId, partitions: [], totalLag: 0 }), measuredAtMs: Date.now(), error });
    }
  };
  return {
    start(): void {
      const tick = (): void => {
        running ??= measure().finally(() => (running = null));
      };
      tick();
      timer = setInterval(tick, deps.intervalMs);
      timer.unref();
    },
    async shutdown(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
      if (connected) await admin.disconnect().catch(() => undefined);
    },
  };
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
