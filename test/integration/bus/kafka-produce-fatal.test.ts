import { Kafka, logLevel } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKafkaBus, deadLetterTopic } from '../../../shared/adapters/bus/index.ts';
import { FatalError } from '../../../shared/runtime/errors/index.ts';
import { untilFatal } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';

// A produce failure that no retry and no dead letter can help (here: a topic name the broker
// refuses, INVALID_TOPIC_EXCEPTION, as it refuses a topic one may not write to) is never retried
// for ever nor turned into a dead letter per record: the bus reports it, and the service runner
// (runService, `up`) stops the process with the message. A handler that met it leaves its record
// uncommitted and out of the dead-letter topic.

describe('kafka bus: a produce failure no retry can help', () => {
  it('rejects with a FatalError naming the topic, reports it once, and dead-letters nothing', async () => {
    const topic = uniqueName('bus_fatal_in');
    const groupId = uniqueName('g_bus_fatal');
    const refusedTopic = `${uniqueName('bus fatal')} not a topic!`;
    const bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('bus_fatal'), log: createSilentLogger(), topicPartitions: 1, commitIntervalMs: 200, retryBackoff: { initialDelayMs: 50, maxDelayMs: 200 }, connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000, clientRetries: 2, joinTimeoutMs: 30_000 });
    await bus.ensureTopics([topic]);
    const fatal = untilFatal();
    const producer = bus.createProducer();
    await producer.start();
    let attempts = 0;
    const consumer = bus.createConsumer({
      topic,
      groupId,
      handle: async (m) => {
        attempts++;
        await producer.send(refusedTopic, [{ key: m.key, value: m.value }]);
      },
    });
    const admin = new Kafka({ clientId: 'bus-test-fatal-admin', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const direct: unknown = await producer.send(refusedTopic, [{ key: 'k', value: 'v' }]).then(
        () => null,
        (err: unknown) => err,
      );
      expect(direct).toBeInstanceOf(FatalError);
      expect((direct as Error).message).toMatch(new RegExp(`^sending 1 record\\(s\\) to ${refusedTopic.replace(/[!]/g, '\\$&')}: .*invalid topic`));
      expect(await fatal.promise).toBe(direct);

      await producer.send(topic, [{ key: 'k', value: 'v0' }]);
      await consumer.start();
      await waitFor(() => attempts >= 1 || undefined, { timeoutMs: 30_000, description: 'the record handled once' });
      await sleep(2_000); // ten commit intervals and many backoffs: neither a retry nor a commit nor a dead letter
      expect(attempts).toBe(1);
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(offsets.partitions.map((p) => p.offset)).toEqual(['-1']);
      const dlq = await admin.fetchTopicOffsets(deadLetterTopic(topic));
      expect(dlq.map((p) => p.high)).toEqual(['0']);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      await admin.disconnect();
    }
  }, 90_000);
});
