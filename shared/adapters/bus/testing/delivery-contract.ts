import { expect, it } from 'vitest';
import { uniqueName } from '../../../../test/helpers/infra.ts';
import { PermanentError, RetriableError } from '../../../runtime/errors/index.ts';
import type { BusMessage, OutgoingMessage } from '../contract.ts';
import { deadLetterTopic } from '../dead-letter.ts';
import { values, type BusContractFixture } from './bus-contract-fixture.ts';

/** The contract for handlers that finish in the call: order, fields, commits, retries, dead letters, shutdown. */
export function describeDeliveryContract(fx: BusContractFixture): void {
  const { bus, stop, startedLast, freshTopic, produce, consume, until } = fx;

  it('delivers the records of each key in the order they were sent', async () => {
    const topic = await freshTopic('bus_order');
    const keys = ['alpha', 'beta', 'gamma', 'delta'];
    const batch = (from: number, to: number): OutgoingMessage[] =>
      Array.from({ length: to - from }, (_, i) => from + i).flatMap((i) => keys.map((key) => ({ key, value: `${key}-${i}` })));
    await produce(topic, batch(0, 10));
    await produce(topic, batch(10, 20));

    const seen = await consume({ topic, groupId: uniqueName('g_order') });
    await until('80 records', () => seen.length >= 80);

    expect(seen).toHaveLength(80);
    for (const key of keys) {
      const ofKey = seen.filter((m) => m.key === key);
      expect(values(ofKey)).toEqual(Array.from({ length: 20 }, (_, i) => `${key}-${i}`));
      expect(new Set(ofKey.map((m) => m.partition)).size).toBe(1);
      expect(ofKey.map((m) => BigInt(m.offset))).toEqual([...ofKey.map((m) => BigInt(m.offset))].sort((a, b) => (a < b ? -1 : 1)));
    }
  });

  it('takes no record while holdReading answers true, and reads on, in order, once it answers false', async () => {
    const topic = await freshTopic('bus_hold');
    let hold = false;
    const seen = await consume({ topic, groupId: uniqueName('g_hold'), holdReading: () => hold });
    await produce(topic, [{ key: 'k', value: 'v0' }]);
    await until('the first record', () => seen.length >= 1);
    hold = true;
    await produce(topic, [1, 2, 3].map((i) => ({ key: 'k', value: `v${i}` })));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(values(seen)).toEqual(['v0']);
    hold = false;
    await until('the held records', () => seen.length >= 4);
    expect(values(seen)).toEqual(['v0', 'v1', 'v2', 'v3']);
  });

  it('passes key, value and headers through unchanged', async () => {
    const topic = await freshTopic('bus_fields');
    await produce(topic, [{ key: 'trace-1', value: '{"ünïcode":"✓"}', headers: { 'schema-version': '1', source: 'test' } }]);
    const seen = await consume({ topic, groupId: uniqueName('g_fields') });
    await until('1 record', () => seen.length >= 1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ topic, key: 'trace-1', value: '{"ünïcode":"✓"}', headers: { 'schema-version': '1', source: 'test' } });
    expect(typeof seen[0].timestampMs).toBe('number');
  });

  it('resumes a group after the committed offset: nothing lost, nothing twice', async () => {
    const topic = await freshTopic('bus_resume');
    const groupId = uniqueName('g_resume');
    const record = (i: number): OutgoingMessage => ({ key: 'one-key', value: `v${i}` });
    await produce(topic, [0, 1, 2, 3, 4].map(record));

    const first = await consume({ topic, groupId });
    await until('first 5 records', () => first.length >= 5);
    await stop(startedLast());
    expect(values(first)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);

    await produce(topic, [5, 6, 7].map(record));
    const second = await consume({ topic, groupId });
    await until('3 new records', () => second.length >= 3);
    // One key, one partition: the sentinel arrives after anything that would be a duplicate.
    await produce(topic, [{ key: 'one-key', value: 'sentinel' }]);
    await until('the sentinel', () => second.some((m) => m.value === 'sentinel'));
    expect(values(second)).toEqual(['v5', 'v6', 'v7', 'sentinel']);
  });

  it('commits no further than committableOffset allows, so a restart re-reads past it', async () => {
    const topic = await freshTopic('bus_lowwater');
    const groupId = uniqueName('g_lowwater');
    await produce(topic, [0, 1, 2, 3, 4].map((i) => ({ key: 'open-trace', value: `v${i}` })));

    const calls: Array<[number, string]> = [];
    const first = await consume({
      topic,
      groupId,
      // A low-water mark stuck at offset 1: records 2.. belong to a trace that is still open.
      committableOffset: (partition, lastHandled) => {
        calls.push([partition, lastHandled]);
        return BigInt(lastHandled) < 1n ? lastHandled : '1';
      },
    });
    await until('5 records', () => first.length >= 5);
    await until('committableOffset asked for offset 4', () => calls.some(([, o]) => o === '4'));
    await stop(startedLast());
    // Asked at least once per commit (Kafka: per batch), always about handled records.
    expect(calls[calls.length - 1][1]).toBe('4');
    expect(new Set(calls.map(([p]) => p))).toEqual(new Set([first[0].partition]));

    const second = await consume({ topic, groupId });
    await until('the re-read records', () => second.length >= 3);
    await produce(topic, [{ key: 'open-trace', value: 'sentinel' }]);
    await until('the sentinel', () => second.some((m) => m.value === 'sentinel'));
    expect(values(second)).toEqual(['v2', 'v3', 'v4', 'sentinel']);
    expect(second[0].offset).toBe('2');
  });

  it('re-reads everything when committableOffset allows no commit', async () => {
    const topic = await freshTopic('bus_nocommit');
    const groupId = uniqueName('g_nocommit');
    await produce(topic, [0, 1, 2].map((i) => ({ key: 'k', value: `v${i}` })));
    const first = await consume({ topic, groupId, committableOffset: () => null });
    await until('3 records', () => first.length >= 3);
    await stop(startedLast());

    const second = await consume({ topic, groupId });
    await until('3 re-read records', () => second.length >= 3);
    await produce(topic, [{ key: 'k', value: 'sentinel' }]);
    await until('the sentinel', () => second.some((m) => m.value === 'sentinel'));
    expect(values(second)).toEqual(['v0', 'v1', 'v2', 'sentinel']);
  });

  it('sends a permanently failing record to <topic>.dlq and goes on with the next', async () => {
    const topic = await freshTopic('bus_dlq');
    await bus().ensureTopics([deadLetterTopic(topic)]);
    await produce(topic, ['v0', 'poison', 'v2'].map((value) => ({ key: 'k', value, headers: { origin: 'test' } })));

    const attempted: BusMessage[] = [];
    const handled = await consume({
      topic,
      groupId: uniqueName('g_dlq'),
      handle: (m) => {
        attempted.push(m);
        return m.value === 'poison' ? Promise.reject(new PermanentError('unknown schema version 99')) : Promise.resolve();
      },
    });
    await until('v0 and v2 handled', () => handled.length >= 2);
    expect(values(handled)).toEqual(['v0', 'v2']);
    expect(values(attempted)).toEqual(['v0', 'poison', 'v2']);

    const dead = await consume({ topic: deadLetterTopic(topic), groupId: uniqueName('g_dlq_reader') });
    await until('1 dead-lettered record', () => dead.length >= 1);
    expect(dead).toHaveLength(1);
    const poison = attempted[1];
    expect(dead[0]).toMatchObject({ topic: deadLetterTopic(topic), key: 'k', value: 'poison' });
    expect(dead[0].headers).toMatchObject({
      origin: 'test',
      error: 'unknown schema version 99',
      'original-topic': topic,
      'original-partition': String(poison.partition),
      'original-offset': '1',
    });
  });

  it('retries a retriable failure until it succeeds, without skipping or reordering', async () => {
    const topic = await freshTopic('bus_retry');
    await produce(topic, ['v0', 'flaky', 'v2'].map((value) => ({ key: 'k', value })));

    let flakyAttempts = 0;
    const handled = await consume({
      topic,
      groupId: uniqueName('g_retry'),
      handle: (m) => {
        if (m.value !== 'flaky') return Promise.resolve();
        flakyAttempts += 1;
        return flakyAttempts < 3 ? Promise.reject(new RetriableError('database unavailable')) : Promise.resolve();
      },
    });
    await until('3 records handled', () => handled.length >= 3);
    expect(values(handled)).toEqual(['v0', 'flaky', 'v2']);
    expect(flakyAttempts).toBe(3);
  });

  it('stops delivering on shutdown and waits for the record in hand', async () => {
    const topic = await freshTopic('bus_shutdown');
    await produce(topic, [{ key: 'k', value: 'slow' }, { key: 'k', value: 'after' }]);

    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    const handled = await consume({
      topic,
      groupId: uniqueName('g_shutdown'),
      handle: async (m) => {
        events.push(`start ${m.value}`);
        if (m.value === 'slow') await gate;
        events.push(`end ${m.value}`);
      },
    });
    await until('the slow record in hand', () => events.includes('start slow'));
    const consumer = startedLast();
    const stopped = stop(consumer).then(() => events.push('stopped'));
    release();
    await stopped;
    expect(events).toEqual(['start slow', 'end slow', 'stopped']);
    expect(values(handled)).toEqual(['slow']);
  });
}
