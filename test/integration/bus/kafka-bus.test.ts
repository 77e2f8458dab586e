import { Kafka, logLevel } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKafkaBus } from '../../../shared/adapters/bus/index.ts';
import { describeBusContract } from '../../../shared/adapters/bus/testing/bus-contract-suite.ts';
import { RetriableError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { BusMessage, ConsumerLag } from '../../../shared/adapters/bus/index.ts';
import { testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';

// Bounded everywhere: with the broker down, the first ensureTopics fails within seconds and every
// test fails instead of hanging.
const bounded = { connectionTimeoutMs: 2_000, requestTimeoutMs: 10_000, clientRetries: 2, joinTimeoutMs: 30_000 };

describeBusContract('kafka', {
  create: () =>
    Promise.resolve({
      bus: createKafkaBus({
        brokers: testKafkaBrokers(),
        clientId: uniqueName('bus_test'),
        log: createSilentLogger(),
        retryBackoff: { initialDelayMs: 20, maxDelayMs: 100 },
        heartbeatIntervalMs: 1_000,
        sessionTimeoutMs: 10_000,
        commitIntervalMs: 200,
        ...bounded,
      }),
      close: () => Promise.resolve(),
    }),
  waitTimeoutMs: 60_000,
});

describe('kafka bus failures', () => {
  it('fails fast with a RetriableError when no broker listens', async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const bus = createKafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'unreachable', log: createSilentLogger(), connectionTimeoutMs: 500, requestTimeoutMs: 1_000, clientRetries: 1 });
    const producer = bus.createProducer();
    const error: unknown = await producer.start().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RetriableError);
    expect((error as Error).message).toMatch(/^connecting a producer to 127\.0\.0\.1:1: /);
    await producer.shutdown();
  });
});

describe('kafka bus specifics', () => {
  const newBus = (overrides: Partial<Parameters<typeof createKafkaBus>[0]> = {}) =>
    createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('bus_test'), log: createSilentLogger(), ...bounded, ...overrides });

  it('ensureTopics creates the topic with its partitions and its dead-letter topic', async () => {
    const topic = uniqueName('bus_ensure');
    const bus = newBus({ topicPartitions: 4 });
    await bus.ensureTopics([topic]);
    await bus.ensureTopics([topic]);

    const admin = new Kafka({ clientId: 'bus-test-admin', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic, `${topic}.dlq`] });
      expect(topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
        [topic, 4],
        [`${topic}.dlq`, 4],
      ]);
    } finally {
      await admin.disconnect();
    }
  });

  it('keeps its group membership through a handler slower than the session timeout', async () => {
    const bus = newBus({ sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000 });
    const topic = uniqueName('bus_slow');
    const groupId = uniqueName('g_slow');
    await bus.ensureTopics([topic]);
    const producer = bus.createProducer();
    await producer.start();
    await producer.send(topic, [
      { key: 'k', value: 'slow' },
      { key: 'k', value: 'next' },
    ]);

    const seen: string[] = [];
    const first = bus.createConsumer({
      topic,
      groupId,
      handle: async (m: BusMessage) => {
        // Longer than the session timeout: without heartbeats the broker would evict the member
        // and a rebalance would hand 'slow' out a second time.
        if (m.value === 'slow') await sleep(8_000);
        seen.push(m.value);
      },
    });
    await first.start();
    try {
      await waitFor(() => seen.length >= 2 || undefined, { timeoutMs: 60_000, description: 'both records' });
    } finally {
      await first.shutdown();
    }
    expect(seen).toEqual(['slow', 'next']);

    const again: string[] = [];
    const second = bus.createConsumer({ topic, groupId, handle: (m) => Promise.resolve(void again.push(m.value)) });
    await second.start();
    try {
      await producer.send(topic, [{ key: 'k', value: 'sentinel' }]);
      await waitFor(() => again.includes('sentinel') || undefined, { timeoutMs: 60_000, description: 'the sentinel' });
    } finally {
      await second.shutdown();
      await producer.shutdown();
    }
    expect(again).toEqual(['sentinel']);
  });

  it('commits deferred work exactly below the oldest unfinished record while it runs, then past it once it is done', async () => {
    const bus = newBus({ commitIntervalMs: 200, retryBackoff: { initialDelayMs: 20, maxDelayMs: 100 } });
    const topic = uniqueName('bus_deferred_commit');
    const groupId = uniqueName('g_deferred_commit');
    await bus.ensureTopics([topic]);
    const producer = bus.createProducer();
    await producer.start();
    await producer.send(topic, ['v0', 'v1', 'v2', 'v3', 'v4'].map((value) => ({ key: 'k', value })));
    let storeUp = false;
    const done: string[] = [];
    let partition = -1;
    const consumer = bus.createConsumer({
      topic,
      groupId,
      handle: (m) => {
        partition = m.partition;
        return Promise.resolve({
          run: () => {
            if (m.value === 'v1' && !storeUp) return Promise.reject(new RetriableError('store unavailable'));
            done.push(m.value);
            return Promise.resolve();
          },
        });
      },
    });
    const admin = new Kafka({ clientId: 'bus-test-offsets', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const committed = async (): Promise<string> => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets.partitions.filter((p) => p.offset !== '-1').map((p) => `${p.partition}:${p.offset}`).join(',');
    };
    await consumer.start();
    try {
      await waitFor(() => done.length === 4 || undefined, { timeoutMs: 30_000, description: 'v0, v2, v3, v4 done' });
      await waitFor(async () => (await committed()) === `${partition}:1` || undefined, { timeoutMs: 10_000, description: 'the commit at v1' });
      await sleep(1_000); // five commit intervals: the commit must not move while v1 keeps failing
      expect(await committed()).toBe(`${partition}:1`);
      storeUp = true;
      await waitFor(async () => (await committed()) === `${partition}:5` || undefined, { timeoutMs: 10_000, description: 'the commit past v4' });
      expect([...done].sort()).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      await admin.disconnect();
    }
  });

  it('reports its lag on its assigned partitions: the records not yet committed, then 0 once they are', async () => {
    const bus = newBus({ topicPartitions: 2, lagIntervalMs: 200, commitIntervalMs: 200 });
    const topic = uniqueName('bus_lag');
    await bus.ensureTopics([topic]);
    const producer = bus.createProducer();
    await producer.start();
    // Keys chosen by murmur2 spread over both partitions; what matters is the sum and each partition's own count.
    await producer.send(topic, Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: String(i) })));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const reports: ConsumerLag[] = [];
    const consumer = bus.createConsumer({ topic, groupId: uniqueName('g_lag'), handle: () => held, onLag: (lag) => reports.push(lag) });
    await consumer.start();
    try {
      // The first record of each partition is in hand and nothing is committed: every record counts.
      const before = await waitFor(() => reports.find((r) => r.partitions.length === 2 && r.error === null), { timeoutMs: 20_000, description: 'a lag report on both partitions' });
      expect(before.totalLag).toBe(10);
      expect(before.partitions.map((p) => [p.partition, p.committedOffset, p.lag])).toEqual([
        [0, null, Number(before.partitions[0].highWatermark)],
        [1, null, Number(before.partitions[1].highWatermark)],
      ]);
      release();
      const after = await waitFor(() => reports.find((r) => r.totalLag === 0 && r.partitions.length === 2), { timeoutMs: 20_000, description: 'lag back to 0' });
      expect(after.partitions.map((p) => [p.partition, p.committedOffset, p.lag])).toEqual([
        [0, before.partitions[0].highWatermark, 0],
        [1, before.partitions[1].highWatermark, 0],
      ]);
    } finally {
      release();
      await consumer.shutdown();
      await producer.shutdown();
    }
  });
});
