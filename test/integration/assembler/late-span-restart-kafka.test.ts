import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { testKafkaBrokers } from '../../helpers/infra.ts';
import { createTestKafkaBus } from '../../helpers/test-kafka-bus.ts';
import { runLateSpanRestart } from './late-span-restart.ts';

// The shared broker; each assembler a new client in the same group, as a restarted process is.
const open = () => createTestKafkaBus('late_span');

/** Whether the group's committed offsets reach the end of every partition of the topic. */
async function committedAll(groupId: string, topic: string): Promise<boolean> {
  const admin = new Kafka({ clientId: 'late-span-commits', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const [high, [group]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const committed = new Map((group?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return high.every((p) => (committed.get(p.partition) ?? -1) >= Number(p.high));
  } finally {
    await admin.disconnect();
  }
}

describe('a late span across an assembler restart, Kafka', () => {
  it('re-opens the trace published before the restart whole: the latest unit has every span', async () => {
    expect(await runLateSpanRestart({ open, close: () => Promise.resolve(), replayRecords: 1_000, waitTimeoutMs: 60_000, committedAll })).toEqual([3, 5]);
  });

  it('without the replay (TRACECHECK_TRACE_REPLAY_RECORDS=0), the latest unit holds the late spans only', async () => {
    // Rootless without part 1, they close after the max open time.
    expect(await runLateSpanRestart({ open, close: () => Promise.resolve(), replayRecords: 0, maxOpenMs: 2_000, waitTimeoutMs: 60_000, committedAll })).toEqual([3, 2]);
  });
});
