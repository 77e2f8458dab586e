import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import type { BusMessage } from './contract.ts';
import { createInMemoryBus } from './in-memory-bus.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const durableBus = (dir: string) => createInMemoryBus({ log: createSilentLogger(), retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 }, durable: { dir, segmentBytes: 4096, offsetFlushMs: 20 } });

async function send(bus: ReturnType<typeof durableBus>, from: number, count: number): Promise<void> {
  const producer = bus.createProducer();
  await producer.start();
  await producer.send('t', Array.from({ length: count }, (_, i) => ({ key: 'k', value: `${from + i}:${'y'.repeat(100)}` })));
  await producer.shutdown();
}

describe('in-process bus on disk: replay', () => {
  it("keeps the segments holding the last maxRecords below a replaying group's commit (no more), and replays them exactly after a reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bus-replay-'));
    dirs.push(dir);
    const segmentDir = join(dir, 'topics', 't', '0');
    const bases = (): number[] => readdirSync(segmentDir).map((f) => Number(f.slice(0, 20))).sort((a, b) => a - b);
    const replay = { maxRecords: 50, maxAgeMs: 600_000 };

    const first = durableBus(dir);
    let handled = 0;
    const consumer = first.createConsumer({ topic: 't', groupId: 'g', handle: () => Promise.resolve(void (handled += 1)), replay: { ...replay, take: () => undefined } });
    await consumer.start();
    for (let batch = 0; batch < 20; batch++) await send(first, batch * 10, 10);
    await waitFor(() => handled === 200 || undefined, { timeoutMs: 5_000, description: '200 records' });
    // Committed up to 200: the segments wholly below 150 go, the one holding 150 stays.
    await waitFor(() => (bases()[0] > 0 && bases()[1] > 150) || undefined, { timeoutMs: 5_000, description: 'the segments below record 150 deleted' });
    expect(bases()[0]).toBeLessThanOrEqual(150);
    await consumer.shutdown();
    await first.close();

    const again = durableBus(dir);
    await send(again, 200, 1);
    const replayed: BusMessage[] = [];
    const seen: BusMessage[] = [];
    const resumed = again.createConsumer({ topic: 't', groupId: 'g', handle: (m) => Promise.resolve(void seen.push(m)), replay: { ...replay, take: (m) => void replayed.push(...m) } });
    await resumed.start();
    await waitFor(() => seen.length === 1 || undefined, { timeoutMs: 5_000, description: 'the new record' });
    expect(replayed.map((m) => [m.offset, m.value.split(':')[0]])).toEqual(Array.from({ length: 50 }, (_, i) => [String(150 + i), String(150 + i)]));
    expect(seen.map((m) => m.offset)).toEqual(['200']);
    // Nothing replayed counts as unread.
    expect(again.holdings().map((h) => [h.topic, h.unread])).toEqual([['t', 0]]);
    await resumed.shutdown();
    await again.close();
  });
});
