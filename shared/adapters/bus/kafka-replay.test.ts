import type { Kafka, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import type { BusMessage } from './contract.ts';
import { createKafkaReplay } from './kafka-replay.ts';

/** A broker whose partition 0 starts at `low` and has its first record at or after the asked time at `byTime`. */
function fakeKafka(offsets: { low: number; byTime: number } | Error): Kafka {
  const answer = <T>(value: () => T): Promise<T> => (offsets instanceof Error ? Promise.reject(offsets) : Promise.resolve(value()));
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    fetchTopicOffsetsByTimestamp: () => answer(() => [{ partition: 0, offset: String((offsets as { byTime: number }).byTime) }]),
    fetchTopicOffsets: () => answer(() => [{ partition: 0, offset: '1000', high: '1000', low: String((offsets as { low: number }).low) }]),
  };
  return { admin: () => admin } as unknown as Kafka;
}

const message = (offset: number): KafkaMessage => ({ offset: String(offset), timestamp: '1700000000000', key: null, value: Buffer.from(`v${offset}`), attributes: 0, headers: {} });
const batch = (from: number, to: number): KafkaMessage[] => Array.from({ length: to - from }, (_, i) => message(from + i));

function replayOver(kafka: Kafka, maxRecords = 100) {
  const taken: string[] = [];
  const replay = createKafkaReplay({
    kafka,
    topic: 't',
    replay: { maxRecords, maxAgeMs: 60_000, take: (m: readonly BusMessage[]) => void taken.push(...m.map((x) => x.value)) },
    toBusMessage: (partition, raw) => ({ topic: 't', partition, offset: raw.offset, key: '', value: raw.value!.toString(), headers: {}, timestampMs: Number(raw.timestamp) }),
    log: createSilentLogger(),
  });
  return { replay, taken };
}

describe('kafka replay', () => {
  it('seeks back to the latest of C − maxRecords, the offset for the time bound and the log start, then hands over the records below C', async () => {
    const { replay, taken } = replayOver(fakeKafka({ low: 10, byTime: 35 }), 20);
    // C = 50: by count 30, by time 35, log start 10.
    expect(await replay.step(0, batch(50, 55))).toEqual({ seek: '35' });
    expect(await replay.step(0, batch(35, 45))).toEqual({ replayed: 10 });
    expect(await replay.step(0, batch(45, 53))).toEqual({ replayed: 5 });
    expect(taken).toEqual(Array.from({ length: 15 }, (_, i) => `v${35 + i}`));
    // Done: later batches are handled whole, until the group is joined again.
    expect(await replay.step(0, batch(53, 60))).toEqual({ replayed: 0 });
    replay.reset();
    expect(await replay.step(0, batch(60, 61))).toEqual({ seek: '40' });
  });

  it('needs no seek when nothing lies below C within the bounds', async () => {
    const { replay, taken } = replayOver(fakeKafka({ low: 50, byTime: 20 }));
    expect(await replay.step(0, batch(50, 52))).toEqual({ replayed: 0 });
    expect(taken).toEqual([]);
  });

  it('goes on without a replay when the broker cannot say where to start, or the seek lands past C', async () => {
    const failing = replayOver(fakeKafka(new Error('broker gone')));
    expect(await failing.replay.step(0, batch(50, 52))).toEqual({ replayed: 0 });
    const moved = replayOver(fakeKafka({ low: 0, byTime: 0 }));
    expect(await moved.replay.step(0, batch(50, 52))).toEqual({ seek: '0' });
    // The log's start moved past C meanwhile: back to C, nothing skipped, nothing replayed.
    expect(await moved.replay.step(0, batch(60, 62))).toEqual({ seek: '50' });
    expect(await moved.replay.step(0, batch(50, 52))).toEqual({ replayed: 0 });
    expect(moved.taken).toEqual([]);
  });

  it('hands over no more once take fails, but never handles a record below C', async () => {
    let calls = 0;
    const failingTake = createKafkaReplay({
      kafka: fakeKafka({ low: 0, byTime: 0 }),
      topic: 't',
      replay: { maxRecords: 10, maxAgeMs: 60_000, take: () => Promise.reject(new Error(`disk full ${++calls}`)) },
      toBusMessage: (partition, raw) => ({ topic: 't', partition, offset: raw.offset, key: '', value: '', headers: {}, timestampMs: 0 }),
      log: createSilentLogger(),
    });
    expect(await failingTake.step(0, batch(20, 21))).toEqual({ seek: '10' });
    expect(await failingTake.step(0, batch(10, 15))).toEqual({ replayed: 5 });
    expect(await failingTake.step(0, batch(15, 22))).toEqual({ replayed: 5 });
    expect(calls).toBe(1);
    await failingTake.shutdown();
  });
});
