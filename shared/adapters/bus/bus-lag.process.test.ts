import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createInMemoryBus } from './in-memory-bus.ts';
import { BusFullError } from './memory-topics.ts';

describe('in-memory bus: backpressure by time behind', () => {
  afterEach(() => vi.useRealTimers());

  it('refuses the bounded producer once a running consumer left a record unread longer than maxLagMs, and takes sends again once it caught up', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const bus = createInMemoryBus({ log: createSilentLogger(), maxLagMs: 1_000 });
    const collector = bus.createProducer({ refuseWhenBehind: { topic: 'spans', groups: ['assembler'], maxRecords: 100_000 } });
    const stage = bus.createProducer();
    await collector.start();
    await stage.start();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let handled = 0;
    const scorer = bus.createConsumer({
      topic: 'units',
      groupId: 'scorer',
      handle: async () => {
        await gate;
        handled += 1;
      },
    });
    await scorer.start();
    await stage.send('units', [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    // The scorer holds the first record; the second waits unread from 1,000,000.
    await waitFor(() => bus.lags().length === 1 || undefined, { timeoutMs: 5_000 });
    vi.setSystemTime(1_001_000);
    expect(bus.lags()).toEqual([{ topic: 'units', group: 'scorer', lagMs: 1_000 }]);
    await collector.send('spans', [{ key: 's1', value: 'x' }]);
    vi.setSystemTime(1_001_001);
    await expect(collector.send('spans', [{ key: 's2', value: 'x' }])).rejects.toThrow(BusFullError);
    await expect(collector.send('spans', [{ key: 's2', value: 'x' }])).rejects.toThrow('consumer group scorer has not read a record of units written 1001 ms ago (limit 1000 ms, TRACECHECK_MAX_LAG_MS)');
    // Only the bounded producer, only to its topic: the stages' own sends go on.
    await stage.send('spans', [{ key: 's3', value: 'x' }]);
    expect(bus.holdings().find((h) => h.topic === 'units')!.lagMs).toBe(1_001);

    release();
    await waitFor(() => handled === 2 || undefined, { timeoutMs: 5_000 });
    expect(bus.lags()).toEqual([{ topic: 'units', group: 'scorer', lagMs: 0 }]);
    await collector.send('spans', [{ key: 's4', value: 'x' }]);
    await scorer.shutdown();
    await bus.close();
  });

  it('counts a record on disk from before the start as written at the start (its own time is not read back)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(2_000_000);
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bus-lag-'));
    const first = createInMemoryBus({ log: createSilentLogger(), durable: { dir, fsync: false } });
    const p1 = first.createProducer();
    await p1.start();
    await p1.send('units', [
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    await first.close();

    vi.setSystemTime(3_000_000);
    const bus = createInMemoryBus({ log: createSilentLogger(), durable: { dir, fsync: false } });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let taken = 0;
    const consumer = bus.createConsumer({ topic: 'units', groupId: 'scorer', handle: () => ((taken += 1), gate) });
    await consumer.start();
    await waitFor(() => taken === 1 || undefined, { timeoutMs: 5_000 });
    vi.setSystemTime(3_000_500);
    // Record 0 is taken (its handler waits); record 1, on disk only, waits since the start.
    expect(bus.lags()).toEqual([{ topic: 'units', group: 'scorer', lagMs: 500 }]);
    release();
    await consumer.shutdown();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
