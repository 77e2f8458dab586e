import { Kafka, Partitioners, type Producer as KafkaProducer } from 'kafkajs';
import { FatalError, PermanentError } from '../../runtime/errors/index.ts';
import { reportFatal } from '../../runtime/lifecycle/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import type { Bus, Consumer, ConsumerOptions, OutgoingMessage, Producer, ProducerOptions, SendOptions } from './contract.ts';
import { createBacklogGate } from './kafka-backlog-gate.ts';
import { DEFAULT_LAG_INTERVAL_MS } from '../../runtime/config/index.ts';
import { countDeadLetters, deadLetterTopic, oversizedDeadLetterRecord } from './dead-letter.ts';
import { createKafkaConsumer } from './kafka-consumer.ts';
import { isRecordRefused, isTooLarge, toBusError, toSendError } from './kafka-errors.ts';
import { createKafkaLimits, KAFKA_DEFAULT_MAX_BYTES } from './kafka-limits.ts';
import { largestRecordBytes, requestBudget, sendSized } from './sized-send.ts';
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
  /** The client's own limit of a produce request's size, besides the broker's and the topic's. Default 1 MiB + 12 (Kafka's). */
  maxRequestBytes?: number;
}

/** Room kept in a dead-letter record for its headers when its value is cut to fit. */
const DEAD_LETTER_HEADER_ROOM = 8_192;

/**
 * The Bus on Kafka through kafkajs, which stays behind this module (it is in maintenance mode).
 * `ensureTopics` also creates each topic's `<topic>.dlq`, for clusters without auto-creation.
 *
 * Delivery is at least once. Offsets are committed by hand, never automatically: after a record is
 * handled (or dead-lettered) the consumer commits min(committableOffset, last handled) + 1, since
 * Kafka stores the NEXT offset to read. A record whose handler is still retrying, or that was in
 * hand at a crash, is therefore read again by whoever owns its partition next. The consumer lives
 * in kafka-consumer.ts, its lag measurement in kafka-lag-monitor.ts.
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

  const limits = createKafkaLimits({ kafka, clientMaxBytes: options.maxRequestBytes ?? KAFKA_DEFAULT_MAX_BYTES, log });

  // acks -1: resolved only when every in-sync replica has the records. No compression: the gzip
  // codec of kafkajs costs several times the send itself.
  const produce = (producer: KafkaProducer, topic: string, messages: readonly OutgoingMessage[]) =>
    producer.send({
      topic,
      acks: -1,
      timeout: requestTimeout,
      messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers ? { ...m.headers } : undefined })),
    });

  const sendWith = async (producer: KafkaProducer, topic: string, messages: readonly OutgoingMessage[], sendOptions?: SendOptions): Promise<void> => {
    if (messages.length === 0) return;
    try {
      const limit = await limits.limitFor(topic);
      // A dead-letter topic's own oversized record stays there (cut), rather than a `.dlq.dlq`.
      const dlq = topic.endsWith('.dlq') ? topic : deadLetterTopic(topic);
      const toDeadLetter = (errorName: string) => async (m: OutgoingMessage, reason: string) => {
        log.error({ topic, key: m.key.slice(0, 200), bytes: Buffer.byteLength(m.value), limit }, `${reason}; it goes to ${dlq}`);
        const room = requestBudget(Math.min(limit, await limits.limitFor(dlq))) - DEAD_LETTER_HEADER_ROOM;
        await produce(producer, dlq, [oversizedDeadLetterRecord(topic, m, reason, room, errorName)]);
        countDeadLetters(topic, 1);
      };
      await sendSized(messages, {
        send: async (batch) => void (await produce(producer, topic, batch)),
        isTooLarge,
        oversized: toDeadLetter('RecordTooLargeError'),
        // A dead-letter topic refusing a record leaves nowhere to put it: that stops the service.
        ...(topic === dlq ? {} : { isRecordRefused, refused: toDeadLetter('RecordRefusedError') }),
        budgetBytes: requestBudget(limit),
        limitBytes: limit,
        ...(sendOptions?.kind ? { kind: sendOptions.kind } : {}),
      });
    } catch (err) {
      const failure = toSendError(err, `sending ${messages.length} record(s) to ${topic}`);
      // No retry helps and no record is to blame: the service stops (runService) with this line.
      if (failure instanceof FatalError) reportFatal(failure);
      throw failure;
    }
  };

  const createProducer = (producerOptions?: ProducerOptions): Producer => {
    const producer = newProducer();
    const bound = producerOptions?.refuseWhenBehind;
    const gate = bound ? createBacklogGate({ kafka, bound, intervalMs: options.lagIntervalMs ?? DEFAULT_LAG_INTERVAL_MS, log }) : null;
    let state: 'new' | 'starting' | 'started' | 'stopped' = 'new';
    let stopping: Promise<void> | null = null;
    return {
      name: 'bus.kafka.producer',
      async start() {
        if (state !== 'new') return;
        state = 'starting';
        try {
          await producer.connect();
          await gate?.start();
        } catch (err) {
          state = 'new';
          throw toBusError(err, `connecting a producer to ${options.brokers.join(',')}`);
        }
        state = 'started';
      },
      async send(topic, messages, sendOptions) {
        if (state !== 'started') throw new PermanentError(`producer is ${state === 'stopped' ? 'shut down' : 'not started'}`);
        gate?.check(topic, messages.length);
        await sendWith(producer, topic, messages, sendOptions);
      },
      maxRecordBytes: async (topic) => largestRecordBytes(requestBudget(await limits.limitFor(topic))),
      shutdown() {
        if (!stopping) {
          const wasStarted = state === 'started';
          state = 'stopped';
          stopping = wasStarted
            ? Promise.all([gate?.shutdown(), producer.disconnect().catch((err: unknown) => log.warn({ err }, 'producer disconnect failed'))]).then(() => undefined)
            : Promise.resolve();
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
