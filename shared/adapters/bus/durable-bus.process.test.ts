import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import type { Bus, BusMessage, OutgoingMessage } from './contract.ts';
import { createInMemoryBus, type InMemoryBusOptions } from './in-memory-bus.ts';
import { BusFullError } from './memory-topics.ts';
import { readOffsetsFile } from './offset-file.ts';
import { encodeFrame } from './record-frame.ts';
import { blockInMemoryDeadLetters, describeBusContract } from './testing/bus-contract-suite.ts';

const dirs: string[] = [];
const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-bus-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const durableBus = (dir: string, extra: Partial<InMemoryBusOptions> = {}) =>
  createInMemoryBus({ log: createSilentLogger(), retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 }, durable: { dir, offsetFlushMs: 20, ...extra.durable }, ...extra });

// A small limit, so that the contract's dead-letter outage is a topic full of records (BusFullError).
const CONTRACT_LIMIT = 500;

describeBusContract('in-memory on disk, 1 partition', {
  create: () => {
    const bus = durableBus(freshDir(), { maxRetainedRecords: CONTRACT_LIMIT });
    return Promise.resolve({ bus, close: () => bus.close() });
  },
  waitTimeoutMs: 5_000,
  blockDeadLetters: (bus: Bus, topic: string) => blockInMemoryDeadLetters(bus, topic, CONTRACT_LIMIT),
});

describeBusContract('in-memory on disk, 4 partitions', {
  create: () => {
    const bus = durableBus(freshDir(), { partitions: 4, maxRetainedRecords: CONTRACT_LIMIT });
    return Promise.resolve({ bus, close: () => bus.close() });
  },
  waitTimeoutMs: 5_000,
  blockDeadLetters: (bus: Bus, topic: string) => blockInMemoryDeadLetters(bus, topic, CONTRACT_LIMIT),
});

/** The offset `group` has on disk for partition 0 of `topic` (written every offsetFlushMs), or null. */
const offsetOnDisk = (dir: string, group: string, topic: string): string | null => readOffsetsFile(join(dir, 'offsets.json')).get(group)?.get(topic)?.get(0) ?? null;

const headersOf = (i: number): Record<string, string> => (i % 2 ? { h: `x${i}` } : {});
const records = (n: number, from = 0): OutgoingMessage[] => Array.from({ length: n }, (_, i) => ({ key: `k${(from + i) % 7}`, value: `v${from + i}`, headers: headersOf(from + i) }));

async function send(bus: ReturnType<typeof durableBus>, topic: string, messages: OutgoingMessage[]): Promise<void> {
  const producer = bus.createProducer();
  await producer.start();
  await producer.send(topic, messages);
  await producer.shutdown();
}

/** Consumes until `until` holds, then stops the consumer (which writes the group's offsets). */
async function consume(bus: ReturnType<typeof durableBus>, topic: string, until: (seen: BusMessage[]) => boolean, handle?: (m: BusMessage) => Promise<void>): Promise<BusMessage[]> {
  const seen: BusMessage[] = [];
  const consumer = bus.createConsumer({
    topic,
    groupId: 'g',
    handle: async (m) => {
      await handle?.(m);
      seen.push(m);
    },
  });
  await consumer.start();
  await waitFor(() => until(seen) || undefined, { timeoutMs: 5_000, description: 'records consumed' });
  await consumer.shutdown();
  return seen;
}

describe('in-process bus on disk', () => {
  it('replays after a restart exactly the records no group committed', async () => {
    const dir = freshDir();
    const first = durableBus(dir);
    await send(first, 't', records(10));
    const seen: string[] = [];
    const stuck = first.createConsumer({
      topic: 't',
      groupId: 'g',
      // Record 4 is never finished: the process "dies" while handling it (no shutdown, no close).
      handle: (m) => (Number(m.offset) >= 4 ? new Promise(() => undefined) : Promise.resolve(void seen.push(m.value))),
    });
    await stuck.start();
    await waitFor(() => seen.length === 4 || undefined, { timeoutMs: 5_000, description: 'four records' });
    await waitFor(() => offsetOnDisk(dir, 'g', 't') === '4' || undefined, { timeoutMs: 5_000, description: 'offset 4 on disk' });
    expect(seen).toEqual(['v0', 'v1', 'v2', 'v3']);
    const second = durableBus(dir);
    // Before any consumer runs, the six are on disk only, and count as unread.
    expect(second.holdings().map((h) => [h.topic, h.inMemory, h.unread])).toEqual([['t', 0, 6]]);
    const replayed = await consume(second, 't', (s) => s.length === 6);
    expect(replayed.map((m) => [m.offset, m.value, m.headers])).toEqual(
      [4, 5, 6, 7, 8, 9].map((i) => [String(i), `v${i}`, headersOf(i)]),
    );
    await second.close();
  });

  it('drops a torn record at the end of the log and appends after the last whole one', async () => {
    const dir = freshDir();
    const first = durableBus(dir);
    await send(first, 't', records(3));
    await first.close();
    const segmentDir = join(dir, 'topics', 't', '0');
    const [segment] = readdirSync(segmentDir);
    const intact = statSync(join(segmentDir, segment)).size;
    // A frame cut by a crash: a length and a CRC, then half a payload.
    appendFileSync(join(segmentDir, segment), Buffer.from([0, 0, 0, 40, 1, 2, 3, 4, 9, 9, 9]));
    const second = durableBus(dir);
    expect(statSync(join(segmentDir, segment)).size).toBe(intact);
    await send(second, 't', [{ key: 'k', value: 'after' }]);
    await second.close();
    const third = durableBus(dir);
    const seen = await consume(third, 't', (s) => s.length === 4);
    expect(seen.map((m) => [m.offset, m.value])).toEqual([['0', 'v0'], ['1', 'v1'], ['2', 'v2'], ['3', 'after']]);
    await third.close();
  });

  it('drops a record whose bytes were damaged (CRC) and everything after it in the last segment', async () => {
    const dir = freshDir();
    const first = durableBus(dir);
    await send(first, 't', records(2));
    await first.close();
    const segmentDir = join(dir, 'topics', 't', '0');
    const path = join(segmentDir, readdirSync(segmentDir)[0]);
    const size = statSync(path).size;
    // Flip the last byte of the second record.
    const { openSync, readSync, writeSync, closeSync } = await import('node:fs');
    const fd = openSync(path, 'r+');
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    writeSync(fd, Buffer.from([b[0] ^ 0xff]), 0, 1, size - 1);
    closeSync(fd);
    const second = durableBus(dir);
    const seen = await consume(second, 't', (s) => s.length === 1);
    expect(seen.map((m) => m.value)).toEqual(['v0']);
    await send(second, 't', [{ key: 'k', value: 'next' }]);
    await second.close();
    const third = durableBus(dir);
    const rest = await consume(third, 't', (s) => s.length === 1);
    expect(rest.map((m) => [m.offset, m.value])).toEqual([['1', 'next']]);
    await third.close();
  });

  it('deletes segments once every reading group has committed past them, so disk stays bounded', async () => {
    const dir = freshDir();
    const bus = durableBus(dir, { durable: { dir, segmentBytes: 4096, offsetFlushMs: 20 } });
    const segmentDir = join(dir, 'topics', 'steady', '0');
    const consumer = bus.createConsumer({ topic: 'steady', groupId: 'g', handle: () => Promise.resolve() });
    await consumer.start();
    const value = 'x'.repeat(200);
    // 4 × 200 records of ~230 bytes (~45 segments of 4 KiB); after each burst the disk shrinks back.
    for (let burst = 0; burst < 4; burst++) {
      for (let round = 0; round < 10; round++) await send(bus, 'steady', Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value })));
      await waitFor(() => readdirSync(segmentDir).length <= 2 || undefined, { timeoutMs: 5_000, description: 'committed segments deleted' });
    }
    await consumer.shutdown();
    await bus.close();
  });

  it("deletes exactly the segments below the slowest group's commit, down to the active one once all is read", async () => {
    const dir = freshDir();
    const segmentDir = join(dir, 'topics', 't', '0');
    const bases = (): number[] => readdirSync(segmentDir).map((f) => Number(f.slice(0, 20))).sort((a, b) => a - b);
    const bus = durableBus(dir, { durable: { dir, segmentBytes: 4096, offsetFlushMs: 20 } });
    const fast = bus.createConsumer({ topic: 't', groupId: 'fast', handle: () => Promise.resolve() });
    // The slow group waits at record 0 (nothing can be deleted), then stops at record 150: it
    // commits up to it (150 is its next record).
    let slowHandled = 0;
    let go = (): void => undefined;
    const atFirst = new Promise<void>((resolve) => (go = resolve));
    const slow = bus.createConsumer({
      topic: 't',
      groupId: 'slow',
      handle: async () => {
        if (slowHandled === 0) await atFirst;
        if (slowHandled === 150) await new Promise(() => undefined);
        slowHandled += 1;
      },
    });
    await fast.start();
    await slow.start();
    for (let batch = 0; batch < 20; batch++) await send(bus, 't', Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: `${batch * 10 + i}:${'y'.repeat(100)}` })));
    // Every segment's base is known from its name: the one holding record 150 and those after it stay.
    const written = bases();
    expect(written.length).toBeGreaterThanOrEqual(4);
    go();
    await waitFor(() => slowHandled === 150 || undefined, { timeoutMs: 5_000, description: 'the slow group at record 150' });
    const holding150 = written.filter((b) => b <= 150).at(-1)!;
    const kept = written.filter((b) => b >= holding150);
    expect(kept.length).toBeLessThan(written.length);
    await waitFor(() => bases().length === kept.length || undefined, { timeoutMs: 5_000, description: `${kept.length} segments left` });
    expect(bases()).toEqual(kept);
    await fast.shutdown();
    await bus.close();

    // Restarted, the slow group reads the rest: only the active segment is left.
    const again = durableBus(dir, { durable: { dir, segmentBytes: 4096, offsetFlushMs: 20 } });
    const seen: string[] = [];
    const resumed = again.createConsumer({ topic: 't', groupId: 'slow', handle: (m) => Promise.resolve(void seen.push(m.value.split(':')[0])) });
    await resumed.start();
    await waitFor(() => seen.length === 50 || undefined, { timeoutMs: 5_000, description: '50 records' });
    expect([seen[0], seen[49]]).toEqual(['150', '199']);
    await waitFor(() => bases().length === 1 || undefined, { timeoutMs: 5_000, description: 'one segment left' });
    expect(bases()).toEqual([written.at(-1)]);
    await resumed.shutdown();
    await again.close();
  });

  it('keeps a segment a slow group still needs, and replays it after a restart', async () => {
    const dir = freshDir();
    const bus = durableBus(dir, { durable: { dir, segmentBytes: 4096, offsetFlushMs: 20 } });
    const fast = bus.createConsumer({ topic: 't', groupId: 'fast', handle: () => Promise.resolve() });
    let slowHandled = 0;
    const slow = bus.createConsumer({
      topic: 't',
      groupId: 'slow',
      handle: async () => {
        if (slowHandled === 5) await new Promise(() => undefined);
        slowHandled += 1;
      },
    });
    await fast.start();
    await slow.start();
    for (let batch = 0; batch < 20; batch++) await send(bus, 't', Array.from({ length: 10 }, (_, i) => ({ key: 'k', value: `${batch * 10 + i}:${'y'.repeat(100)}` })));
    await waitFor(() => offsetOnDisk(dir, 'slow', 't') === '5' || undefined, { timeoutMs: 5_000, description: "the slow group's offset 5 on disk" });
    expect(readdirSync(join(dir, 'topics', 't', '0')).length).toBeGreaterThanOrEqual(4);
    await fast.shutdown();
    // Crash: the slow group resumes at record 5.
    const again = durableBus(dir);
    const seen: string[] = [];
    const resumed = again.createConsumer({ topic: 't', groupId: 'slow', handle: (m) => Promise.resolve(void seen.push(m.value.split(':')[0])) });
    await resumed.start();
    await waitFor(() => seen.length === 195 || undefined, { timeoutMs: 5_000, description: '195 records' });
    expect(seen[0]).toBe('5');
    expect(seen[194]).toBe('199');
    await resumed.shutdown();
    await again.close();
  });

  it('still refuses sends while its readers are too far behind', async () => {
    const dir = freshDir();
    const bus = durableBus(dir, { maxRetainedRecords: 50 });
    const consumer = bus.createConsumer({ topic: 't', groupId: 'g', handle: () => new Promise(() => undefined) });
    await consumer.start();
    await send(bus, 't', records(50));
    await expect(send(bus, 't', records(1))).rejects.toBeInstanceOf(BusFullError);
    await bus.close();
  });

  it('answers concurrent sends from one shared write, in the order they were sent', async () => {
    const dir = freshDir();
    const bus = durableBus(dir);
    const producer = bus.createProducer();
    await producer.start();
    await Promise.all(Array.from({ length: 50 }, (_, i) => producer.send('t', [{ key: 'k', value: String(i) }])));
    await bus.close();
    const again = durableBus(dir);
    const seen = await consume(again, 't', (s) => s.length === 50);
    expect(seen.map((m) => m.value)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    await again.close();
  });

  describe('memory holds only what a running consumer has not read', () => {
    /** Records of 4 partitions with sizes from 10 bytes to 20 KB, so that reads back span segments and chunks. */
    const varied = (n: number): OutgoingMessage[] =>
      Array.from({ length: n }, (_, i): OutgoingMessage => ({ key: `conv-${i % 13}`, value: `${i}:${'z'.repeat((i * 997) % 20_000)}`, headers: i % 3 ? { traceparent: `00-${i}` } : {} }));

    it('keeps records read but uncommitted on disk only, and re-reads them exactly when the consumer restarts in the same process', async () => {
      const dir = freshDir();
      const bus = durableBus(dir, { partitions: 4, durable: { dir, segmentBytes: 64 * 1024, offsetFlushMs: 20 } });
      const sent = varied(400);
      const firstPass: BusMessage[] = [];
      // Like the session assembler with every session open: reads on, commits nothing.
      const holding = bus.createConsumer({ topic: 't', groupId: 'g', committableOffset: () => null, handle: (m) => Promise.resolve(void firstPass.push(m)) });
      await holding.start();
      for (let i = 0; i < sent.length; i += 50) await send(bus, 't', sent.slice(i, i + 50));
      await waitFor(() => firstPass.length === 400 || undefined, { timeoutMs: 5_000, description: '400 records read' });
      const bytes = sent.reduce((n, m) => n + encodeFrame({ key: m.key, value: m.value, headers: m.headers ?? {}, timestampMs: 0 }).length, 0);
      // Read, uncommitted: none in memory (once the consumer idles), all of them on disk.
      await waitFor(() => bus.holdings()[0].inMemory === 0 || undefined, { timeoutMs: 5_000, description: 'memory emptied' });
      expect(bus.holdings()).toEqual([{ topic: 't', inMemory: 0, unread: 0, onDiskBytes: bytes, lagMs: 0 }]);
      await holding.shutdown();
      expect(bus.holdings()).toEqual([{ topic: 't', inMemory: 0, unread: 400, onDiskBytes: bytes, lagMs: 0 }]);

      const secondPass: BusMessage[] = [];
      const again = bus.createConsumer({ topic: 't', groupId: 'g', committableOffset: () => null, handle: (m) => Promise.resolve(void secondPass.push(m)) });
      await again.start();
      await waitFor(() => secondPass.length >= 400 || undefined, { timeoutMs: 5_000, description: '400 records re-read' });
      // Nothing is left to deliver: the consumer has read to the end and holds nothing in memory.
      await waitFor(() => (bus.holdings()[0].inMemory === 0 && bus.holdings()[0].unread === 0) || undefined, { timeoutMs: 5_000, description: 'the consumer idle at the end of the log' });
      const byOffset = (ms: BusMessage[]) => [...ms].sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
      expect(secondPass).toHaveLength(400);
      expect(byOffset(secondPass)).toEqual(byOffset(firstPass));
      // Per partition, in offset order, from 0 with no gap, as the first time.
      for (let p = 0; p < 4; p++) {
        const offsets = secondPass.filter((m) => m.partition === p).map((m) => Number(m.offset));
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }
      expect(bus.holdings()[0].inMemory).toBe(0);
      await again.shutdown();
      await bus.close();
    });

    it('holds from the record a consumer is on: the rest of what it read is dropped at the next send', async () => {
      const dir = freshDir();
      const bus = durableBus(dir);
      let release: () => void = () => undefined;
      let handled = 0;
      const consumer = bus.createConsumer({
        topic: 't',
        groupId: 'g',
        committableOffset: () => null,
        handle: async (m) => {
          if (m.offset === '100') await new Promise<void>((r) => (release = r));
          handled += 1;
        },
      });
      await consumer.start();
      await send(bus, 't', records(300));
      await waitFor(() => handled === 100 || undefined, { timeoutMs: 5_000, description: 'the consumer on record 100' });
      await send(bus, 't', records(1, 300));
      // 100..300: the record being handled, the 199 after it and the new one.
      expect(bus.holdings()[0]).toMatchObject({ inMemory: 201, unread: 201 });
      release();
      await waitFor(() => handled === 301 || undefined, { timeoutMs: 5_000, description: 'all handled' });
      await waitFor(() => bus.holdings()[0].inMemory === 0 || undefined, { timeoutMs: 5_000, description: 'memory emptied' });
      await consumer.shutdown();
      await bus.close();
    });

    it('accepts sends while a group holds its commit back past the limit, and refuses them on an unread backlog past it', async () => {
      const dir = freshDir();
      const bus = durableBus(dir, { maxRetainedRecords: 50 });
      let handled = 0;
      let gate: Promise<void> | null = null;
      let release: () => void = () => undefined;
      const consumer = bus.createConsumer({
        topic: 't',
        groupId: 'g',
        committableOffset: () => null,
        handle: async () => {
          if (gate) await gate;
          handled += 1;
        },
      });
      await consumer.start();
      // 500 records (ten times the limit) read and never committed.
      for (let i = 0; i < 500; i += 25) {
        await send(bus, 't', records(25, i));
        await waitFor(() => handled === i + 25 || undefined, { timeoutMs: 5_000, description: `${i + 25} handled` });
      }
      expect(bus.holdings()[0]).toMatchObject({ inMemory: 0, unread: 0 });
      // Now the consumer stops reading: 50 unread records fit, the 51st does not.
      gate = new Promise<void>((r) => (release = r));
      await send(bus, 't', records(50, 500));
      await expect(send(bus, 't', records(1, 550))).rejects.toBeInstanceOf(BusFullError);
      release();
      gate = null;
      await waitFor(() => handled === 550 || undefined, { timeoutMs: 5_000, description: 'the backlog read' });
      await send(bus, 't', records(1, 550));
      await consumer.shutdown();
      await bus.close();
    });

    it('counts a stopped group from its commit: its unread records refuse sends', async () => {
      const dir = freshDir();
      const first = durableBus(dir, { maxRetainedRecords: 50 });
      await send(first, 't', records(40));
      // The group 'g' reads and commits all 40, and stops.
      await consume(first, 't', (s) => s.length === 40);
      await first.close();
      const second = durableBus(dir, { maxRetainedRecords: 50 });
      await send(second, 't', records(40, 40));
      // A new group starts where every group has committed: at 40.
      const seen: string[] = [];
      const late = second.createConsumer({ topic: 't', groupId: 'late', handle: (m) => Promise.resolve(void seen.push(m.value)) });
      await late.start();
      await waitFor(() => seen.length === 40 || undefined, { timeoutMs: 5_000, description: "the new group's 40 records" });
      await late.shutdown();
      expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => `v${40 + i}`));
      // 'g' is not running and has not read 40..79: 40 unread, 10 more fit, the 11th does not.
      expect(second.holdings()[0]).toMatchObject({ inMemory: 0, unread: 40 });
      await send(second, 't', records(10, 80));
      await expect(send(second, 't', records(1, 90))).rejects.toBeInstanceOf(BusFullError);
      await second.close();
    });
  });
});
