import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createInMemoryBus } from './in-memory-bus.ts';
import { BusFullError } from './memory-topics.ts';
import { partitionForKey } from './partition-for-key.ts';
import type { Bus } from './contract.ts';
import { blockInMemoryDeadLetters, describeBusContract } from './testing/bus-contract-suite.ts';

// A small limit, so that the contract's dead-letter outage is a topic full of records (BusFullError).
const CONTRACT_LIMIT = 500;
const contractHarness = (partitions: number) => ({
  create: () => {
    const bus = createInMemoryBus({ log: createSilentLogger(), partitions, maxRetainedRecords: CONTRACT_LIMIT, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    return Promise.resolve({ bus, close: () => Promise.resolve() });
  },
  waitTimeoutMs: 5_000,
  blockDeadLetters: (bus: Bus, topic: string) => blockInMemoryDeadLetters(bus, topic, CONTRACT_LIMIT),
});

describeBusContract('in-memory, 1 partition', contractHarness(1));
describeBusContract('in-memory, 4 partitions', contractHarness(4));

describe('in-memory bus specifics', () => {
  it("hands its readers the producer's parsed object with the record, the same object, and none when the producer had none", async () => {
    const bus = createInMemoryBus({ log: createSilentLogger() });
    const producer = bus.createProducer();
    await producer.start();
    const seen: unknown[] = [];
    const consumer = bus.createConsumer({ topic: 'units', groupId: 'g', handle: (m) => (seen.push(m.parsed), Promise.resolve()) });
    await consumer.start();
    const object = { unit_id: 'u1' };
    await producer.send('units', [{ key: 'u1', value: JSON.stringify(object), parsed: object }, { key: 'u2', value: '{}' }]);
    await waitFor(() => seen.length === 2, { timeoutMs: 5_000 });
    expect(seen[0]).toBe(object);
    expect(seen[1]).toBeUndefined();
    await consumer.shutdown();
    await producer.shutdown();
  });

  it('drops what every reading group committed, and refuses sends while its readers are too far behind', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger(), maxRetainedRecords: 3000, retainUnread: 10 });
    const producer = bus.createProducer();
    await producer.start();
    let handled = 0;
    let gate: () => void = () => undefined;
    let blocked = true;
    const consumer = bus.createConsumer({
      topic: 'spans',
      groupId: 'g',
      handle: async () => {
        if (blocked) await new Promise<void>((r) => (gate = r));
        handled += 1;
      },
    });
    await consumer.start();
    const batch = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ key: `k${from + i}`, value: 'v' }));
    // The consumer is stuck on its first record: 3,000 records fit, the next send is refused.
    await producer.send('spans', batch(3000, 0));
    await expect(producer.send('spans', batch(1, 3000))).rejects.toBeInstanceOf(BusFullError);
    blocked = false;
    gate();
    await waitFor(() => handled === 3000, { timeoutMs: 5_000 });
    // Everything was committed: the next send drops it and is accepted.
    await producer.send('spans', batch(1, 3000));
    await waitFor(() => handled === 3001, { timeoutMs: 5_000 });
    // A topic nobody reads keeps only its newest records, and never refuses.
    for (let i = 0; i < 5; i++) await producer.send('scores', batch(2000, i * 2000));
    await consumer.shutdown();
  });


  it('commits what became committable after the last record, so a full backlog frees itself', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger(), maxRetainedRecords: 2000, retainUnread: 10 });
    const producer = bus.createProducer();
    await producer.start();
    let handled = 0;
    let holdFrom: string | null = '0'; // like the assembler: nothing is committable while a trace is open
    const consumer = bus.createConsumer({
      topic: 'spans',
      groupId: 'g',
      handle: () => Promise.resolve(void (handled += 1)),
      committableOffset: (_partition, last) => (holdFrom === null ? last : null),
    });
    await consumer.start();
    await producer.send('spans', Array.from({ length: 2000 }, (_, i) => ({ key: `k${i}`, value: 'v' })));
    await waitFor(() => handled === 2000, { timeoutMs: 5_000 });
    await expect(producer.send('spans', [{ key: 'next', value: 'v' }])).rejects.toBeInstanceOf(BusFullError);
    // The "trace" is published: no record comes to carry the commit, yet the backlog drains.
    holdFrom = null;
    await waitFor(() => producer.send('spans', [{ key: 'next', value: 'v' }]).then(() => true), { timeoutMs: 5_000, description: 'a send accepted' });
    await consumer.shutdown();
  });

  it('lets the event loop run while it works through a backlog', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger() });
    const producer = bus.createProducer();
    await producer.start();
    let handled = 0;
    const consumer = bus.createConsumer({
      topic: 'spans',
      groupId: 'g',
      handle: () => {
        const until = performance.now() + 1; // 1 ms of work per record
        while (performance.now() < until);
        handled += 1;
        return Promise.resolve();
      },
    });
    await producer.send('spans', Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: 'v' })));
    let timerRanAt = -1;
    setTimeout(() => (timerRanAt = handled), 0);
    await consumer.start();
    await waitFor(() => handled === 300, { timeoutMs: 5_000 });
    // Were the records all handled in microtasks, no timer could run until the 300th.
    expect(timerRanAt).toBeGreaterThanOrEqual(0);
    expect(timerRanAt).toBeLessThan(300);
    await consumer.shutdown();
  });

  it('maps a key to one stable partition', () => {
    expect(partitionForKey('trace-1', 1)).toBe(0);
    expect(partitionForKey('trace-1', 4)).toBe(partitionForKey('trace-1', 4));
    const spread = new Set(Array.from({ length: 64 }, (_, i) => partitionForKey(`k${i}`, 4)));
    expect(spread).toEqual(new Set([0, 1, 2, 3]));
  });

  it('refuses a second live consumer in the same group and topic', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger() });
    const options = { topic: 't', groupId: 'g', handle: () => Promise.resolve() };
    const first = bus.createConsumer(options);
    await first.start();
    await expect(bus.createConsumer(options).start()).rejects.toThrow(/one consumer per group and topic/);
    await first.shutdown();
    const again = bus.createConsumer(options);
    await again.start();
    await again.shutdown();
  });

  it('rejects sends before start and after shutdown', async () => {
    const producer = createInMemoryBus({ log: createSilentLogger() }).createProducer();
    await expect(producer.send('t', [{ key: 'k', value: 'v' }])).rejects.toThrow(/not started/);
    await producer.start();
    await producer.send('t', [{ key: 'k', value: 'v' }]);
    await producer.shutdown();
    await expect(producer.send('t', [{ key: 'k', value: 'v' }])).rejects.toThrow(/shut down/);
  });

  it('starts a new group at the end when fromBeginning is false', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger() });
    const producer = bus.createProducer();
    await producer.start();
    await producer.send('t', [{ key: 'k', value: 'old' }]);
    const seen: string[] = [];
    const consumer = bus.createConsumer({ topic: 't', groupId: 'late', fromBeginning: false, handle: (m) => Promise.resolve(void seen.push(m.value)) });
    await consumer.start();
    await producer.send('t', [{ key: 'k', value: 'new' }]);
    // Same key, same partition: 'old' would arrive before 'new'.
    await waitFor(() => seen.includes('new') || undefined, { timeoutMs: 5_000, description: "the record 'new'" });
    await consumer.shutdown();
    expect(seen).toEqual(['new']);
  });
});
