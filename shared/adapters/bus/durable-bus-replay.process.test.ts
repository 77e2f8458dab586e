import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** A bus on `dir` whose replaying group 'g' has handled (and commits) records 0–199 of topic 't'. */
async function handledTwoHundred(dir: string, replay: { maxRecords: number; maxAgeMs: number }) {
  const first = durableBus(dir);
  let handled = 0;
  const consumer = first.createConsumer({ topic: 't', groupId: 'g', handle: () => Promise.resolve(void (handled += 1)), replay: { ...replay, take: () => undefined } });
  await consumer.start();
  for (let batch = 0; batch < 20; batch++) await send(first, batch * 10, 10);
  await waitFor(() => handled === 200 || undefined, { timeoutMs: 5_000, description: '200 records' });
  return { first, consumer };
}

describe('in-process bus on disk: replay', () => {
  it("keeps the segments holding the last maxRecords below a replaying group's commit (no more), and replays them exactly after a reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bus-replay-'));
    dirs.push(dir);
    const segmentDir = join(dir, 'topics', 't', '0');
    const bases = (): number[] => readdirSync(segmentDir).map((f) => Number(f.slice(0, 20))).sort((a, b) => a - b);
    const replay = { maxRecords: 50, maxAgeMs: 600_000 };

    const { first, consumer } = await handledTwoHundred(dir, replay);
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

  it('goes on without the replay when the log below the commit cannot be read back: every record from the commit on is handled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bus-replay-'));
    dirs.push(dir);
    const segmentDir = join(dir, 'topics', 't', '0');
    const replay = { maxRecords: 50, maxAgeMs: 600_000 };
    const { first, consumer } = await handledTwoHundred(dir, replay);
    await consumer.shutdown();
    await first.close();
    // A byte of the oldest segment's last record damaged (its CRC fails): the segment holds record
    // 150, where the replay starts, so that record is at 150 or after, in the replay's first chunk.
    const oldest = join(segmentDir, readdirSync(segmentDir).sort()[0]);
    const bytes = readFileSync(oldest);
    bytes[bytes.length - 5] ^= 0xff;
    writeFileSync(oldest, bytes);

    const again = durableBus(dir);
    await send(again, 200, 2);
    const replayed: BusMessage[] = [];
    const seen: string[] = [];
    const resumed = again.createConsumer({ topic: 't', groupId: 'g', handle: (m) => Promise.resolve(void seen.push(m.offset)), replay: { ...replay, take: (m) => void replayed.push(...m) } });
    await resumed.start();
    await waitFor(() => seen.length === 2 || undefined, { timeoutMs: 5_000, description: 'the new records' });
    expect([replayed.length, seen]).toEqual([0, ['200', '201']]);
    await resumed.shutdown();
    await again.close();
  });
});

describe('in-process bus in memory: replay', () => {
  it('keeps the records below a replaying group\'s commit in memory without counting them against the limit', async () => {
    const bus = createInMemoryBus({ log: createSilentLogger(), maxRetainedRecords: 10 });
    const producer = bus.createProducer();
    await producer.start();
    const seen: BusMessage[] = [];
    const replayed: BusMessage[] = [];
    const options = { topic: 't', groupId: 'g', handle: (m: BusMessage) => Promise.resolve(void seen.push(m)) };
    const consumer = bus.createConsumer({ ...options, replay: { maxRecords: 8, maxAgeMs: 600_000, take: () => undefined } });
    await consumer.start();
    await producer.send('t', Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: `v${i}` })));
    await waitFor(() => seen.length === 10 || undefined, { timeoutMs: 5_000, description: '10 records' });
    await consumer.shutdown();
    // All 10 committed: 8 kept for the replay, none unread, so 10 more fit under the limit.
    await producer.send('t', Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: `v${10 + i}` })));
    expect(bus.holdings().map((h) => [h.inMemory, h.unread])).toEqual([[18, 10]]);
    const resumed = bus.createConsumer({ ...options, replay: { maxRecords: 8, maxAgeMs: 600_000, take: (m) => void replayed.push(...m) } });
    await resumed.start();
    await waitFor(() => seen.length === 20 || undefined, { timeoutMs: 5_000, description: '20 records' });
    expect(replayed.map((m) => m.value)).toEqual(['v2', 'v3', 'v4', 'v5', 'v6', 'v7', 'v8', 'v9']);
    expect(seen.slice(10).map((m) => m.value)).toEqual(Array.from({ length: 10 }, (_, i) => `v${10 + i}`));
    await resumed.shutdown();
    await producer.shutdown();
  });
});
