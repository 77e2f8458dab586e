import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/infra.ts';
import { createSilentLogger } from '../logging/index.ts';
import { createInMemoryBus, partitionForKey } from './in-memory-bus.ts';
import { describeBusContract } from './testing/bus-contract-suite.ts';

describeBusContract('in-memory, 1 partition', {
  create: () => Promise.resolve({ bus: createInMemoryBus({ log: createSilentLogger(), retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } }), close: () => Promise.resolve() }),
  waitTimeoutMs: 5_000,
});

describeBusContract('in-memory, 4 partitions', {
  create: () =>
    Promise.resolve({ bus: createInMemoryBus({ log: createSilentLogger(), partitions: 4, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } }), close: () => Promise.resolve() }),
  waitTimeoutMs: 5_000,
});

describe('in-memory bus specifics', () => {
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
