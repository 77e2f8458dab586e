import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { uniqueName } from '../../../../test/helpers/infra.ts';
import type { BusMessage, OutgoingMessage } from '../contract.ts';
import { values, type BusContractFixture } from './bus-contract-fixture.ts';

/**
 * The replay (ConsumerOptions.replay): a restarted member gets the records just below its group's
 * commit, within both bounds, in order, before it handles the first record from the commit on;
 * none is handled again or committed.
 */
export function describeReplayContract(fx: BusContractFixture): void {
  const { stop, startedLast, freshTopic, produce, consume, until } = fx;
  const record = (i: number): OutgoingMessage => ({ key: 'one-key', value: `v${i}` });

  /**
   * Reads the topic to its end in `groupId`, committing no further than `lastCommitted`, then stops.
   * It asks for a replay too (none comes: nothing lies below its start): a bus keeps records for a
   * group's replay once the group asks for it.
   */
  const readCommittingUpTo = async (topic: string, groupId: string, count: number, lastCommitted: string): Promise<void> => {
    const seen = await consume({
      topic,
      groupId,
      committableOffset: (_p, last) => (BigInt(last) < BigInt(lastCommitted) ? last : lastCommitted),
      replay: { maxRecords: 100, maxAgeMs: 600_000, take: () => undefined },
    });
    await until(`${count} records`, () => seen.length >= count);
    await stop(startedLast());
  };

  it('hands a restarted member the last maxRecords records below the commit, then handles from the commit on, each once', async () => {
    const topic = await freshTopic('bus_replay');
    const groupId = uniqueName('g_replay');
    await produce(topic, Array.from({ length: 10 }, (_, i) => record(i)));
    await readCommittingUpTo(topic, groupId, 10, '6');

    const replayed: BusMessage[][] = [];
    const handled = await consume({ topic, groupId, replay: { maxRecords: 4, maxAgeMs: 600_000, take: (m) => void replayed.push([...m]) } });
    await until('the records from the commit on', () => handled.length >= 3);
    await produce(topic, [{ key: 'one-key', value: 'sentinel' }]);
    await until('the sentinel', () => handled.some((m) => m.value === 'sentinel'));
    const taken = replayed.flat();
    expect(values(taken)).toEqual(['v3', 'v4', 'v5', 'v6']);
    expect(taken.map((m) => m.offset)).toEqual(['3', '4', '5', '6']);
    expect(values(handled)).toEqual(['v7', 'v8', 'v9', 'sentinel']);
    await stop(startedLast());

    // Nothing replayed was committed or handled again: the group resumes after the sentinel.
    const again = await consume({ topic, groupId });
    await produce(topic, [{ key: 'one-key', value: 'sentinel-2' }]);
    await until('the second sentinel', () => again.length >= 1);
    expect(values(again)).toEqual(['sentinel-2']);
  });

  it('hands over only records written within maxAgeMs before the first record to handle', async () => {
    const topic = await freshTopic('bus_replay_age');
    const groupId = uniqueName('g_replay_age');
    await produce(topic, [0, 1].map(record));
    await sleep(2_500);
    await produce(topic, [2, 3, 4].map(record));
    await readCommittingUpTo(topic, groupId, 5, '3');

    const replayed: BusMessage[] = [];
    const handled = await consume({ topic, groupId, replay: { maxRecords: 100, maxAgeMs: 1_500, take: (m) => void replayed.push(...m) } });
    await until('the record at the commit', () => handled.length >= 1);
    expect(values(replayed)).toEqual(['v2', 'v3']);
    expect(values(handled)).toEqual(['v4']);
  });
}
