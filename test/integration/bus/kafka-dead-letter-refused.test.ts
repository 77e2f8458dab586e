import { Kafka, logLevel } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkaBus, deadLetterTopic, type BusMessage } from '../../../shared/adapters/bus/index.ts';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import { createLogger } from '../../../shared/runtime/logging/index.ts';
import { startPrivateKafka, type PrivateKafka } from '../../helpers/private-servers.ts';
import { uniqueName, waitFor } from '../../helpers/infra.ts';

// Issue 10's fault test "the DLQ send failing: the record is retried, never committed unhandled",
// on a real broker that refuses the dead-letter write: a private broker that creates no topic on
// its own, whose dead-letter topic is deleted (every send to it fails with
// UNKNOWN_TOPIC_OR_PARTITION, which is retriable) and later created again. The shared broker cannot
// refuse this way: it creates a missing topic on the first send, and with one broker a topic's
// min.insync.replicas is capped at its replica count, so acks=all never fails there.

describe('kafka bus: the dead-letter topic refuses the record', () => {
  let kafka: PrivateKafka;
  beforeAll(async () => {
    kafka = await startPrivateKafka({ autoCreateTopics: false });
  });
  afterAll(async () => {
    await kafka?.destroy();
  });

  it('never commits the record while its dead-letter send fails, also across a restart; once the topic takes it, it is there once and the commit moves past it', async () => {
    const topic = uniqueName('bus_dlq_refused');
    const dlq = deadLetterTopic(topic);
    const groupId = uniqueName('g_dlq_refused');
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', destination: { write: (line: string) => void lines.push(line) } });
    const bus = createKafkaBus({
      brokers: kafka.brokers,
      clientId: uniqueName('bus_dlq_refused'),
      log,
      topicPartitions: 1,
      commitIntervalMs: 200,
      retryBackoff: { initialDelayMs: 100, maxDelayMs: 500 },
      connectionTimeoutMs: 2_000,
      requestTimeoutMs: 10_000,
      clientRetries: 1,
      joinTimeoutMs: 30_000,
    });
    await bus.ensureTopics([topic]);
    const admin = new Kafka({ clientId: 'bus-test-dlq-admin', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const committed = async (): Promise<string> => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets.partitions.map((p) => `${p.partition}:${p.offset}`).join(',');
    };
    const refusedSends = (): number => lines.filter((l) => l.includes('dead-letter send failed; retrying')).length;
    const handled: string[] = [];
    const readsOfTheBadRecord: string[] = [];
    const consume = () =>
      bus.createConsumer({
        topic,
        groupId,
        handle: (m) => {
          if (m.value !== 'bad') return Promise.resolve(void handled.push(m.value));
          readsOfTheBadRecord.push(m.offset);
          return Promise.reject(new PermanentError('the record cannot be handled'));
        },
      });
    const producer = bus.createProducer();
    let consumer = consume();
    try {
      await admin.deleteTopics({ topics: [dlq], timeout: 10_000 });
      await waitFor(async () => !(await admin.listTopics()).includes(dlq) || undefined, { timeoutMs: 30_000, description: 'the dead-letter topic gone' });
      await producer.start();
      await producer.send(topic, ['v0', 'bad', 'v2'].map((value) => ({ key: 'k', value, headers: { sent: value } })));
      await consumer.start();
      await waitFor(() => refusedSends() >= 2 || undefined, { timeoutMs: 60_000, description: 'two refused dead-letter sends' });
      await waitFor(async () => (await committed()) === '0:1' || undefined, { timeoutMs: 10_000, description: 'v0 committed' });
      await sleep(1_000); // five commit intervals: nothing at or past the refused record may be committed
      expect(await committed()).toBe('0:1');
      expect(handled).toEqual(['v0']); // the partition waits behind its refused record

      // Stopped while the topic still refuses: the record was not skipped, the next consumer reads it again.
      await consumer.shutdown();
      expect(await committed()).toBe('0:1');
      consumer = consume();
      const refusedBefore = refusedSends();
      await consumer.start();
      await waitFor(() => (readsOfTheBadRecord.length >= 2 && refusedSends() > refusedBefore) || undefined, { timeoutMs: 60_000, description: 'the record read and refused again after the restart' });
      expect(await committed()).toBe('0:1');

      await admin.createTopics({ topics: [{ topic: dlq, numPartitions: 1 }], waitForLeaders: true });
      await waitFor(async () => (await committed()) === '0:3' || undefined, { timeoutMs: 60_000, description: 'the commit past v2' });
      expect(handled).toEqual(['v0', 'v2']);
      expect(new Set(readsOfTheBadRecord)).toEqual(new Set(['1']));

      const dead: BusMessage[] = [];
      const reader = bus.createConsumer({ topic: dlq, groupId: uniqueName('g_dlq_reader'), handle: (m) => Promise.resolve(void dead.push(m)) });
      await reader.start();
      try {
        await waitFor(() => dead.length >= 1 || undefined, { timeoutMs: 30_000, description: 'the dead-lettered record' });
        await sleep(500); // a second copy would have come with the first
      } finally {
        await reader.shutdown();
      }
      expect(dead.map((m) => ({ key: m.key, value: m.value, headers: m.headers }))).toEqual([
        {
          key: 'k',
          value: 'bad',
          headers: {
            sent: 'bad',
            error: 'the record cannot be handled',
            'error-name': 'PermanentError',
            'original-topic': topic,
            'original-partition': '0',
            'original-offset': '1',
          },
        },
      ]);
      process.stdout.write(`dead-letter topic refusing: ${refusedSends()} refused sends, the record read ${readsOfTheBadRecord.length} times, 1 dead-lettered, committed ${await committed()}\n`);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      await admin.disconnect();
    }
  });
});
