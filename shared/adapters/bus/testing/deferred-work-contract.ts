import { expect, it } from 'vitest';
import { uniqueName } from '../../../../test/helpers/infra.ts';
import { PermanentError, RetriableError } from '../../../runtime/errors/index.ts';
import type { BusMessage, ConsumerOptions } from '../contract.ts';
import { deadLetterTopic } from '../dead-letter.ts';
import { gated, values, type BusContractFixture, type BusContractHarness } from './bus-contract-fixture.ts';

/**
 * The contract for handlers that return deferred work: commits below the oldest unfinished record,
 * retries with backoff, dead letters (also while the dead-letter topic refuses), shutdown, maxInFlight.
 */
export function describeDeferredWorkContract(fx: BusContractFixture, harness: BusContractHarness): void {
  const { bus, stop, startedLast, freshTopic, produce, consume, until, reReadAfterCommit } = fx;

  it('commits deferred work finished out of order only below the oldest record still unfinished', async () => {
    const topic = await freshTopic('bus_deferred_order');
    const groupId = uniqueName('g_deferred_order');
    await produce(topic, ['v0', 'v1', 'v2', 'v3', 'v4'].map((value) => ({ key: 'k', value })));

    const gates = new Map(['v0', 'v2', 'v3', 'v4'].map((v) => [v, gated()]));
    const finished: string[] = [];
    const settled: string[] = [];
    let v1Attempts = 0;
    await consume({
      topic,
      groupId,
      handle: (m) =>
        Promise.resolve({
          run: async () => {
            if (m.value === 'v1') {
              v1Attempts += 1;
              throw new RetriableError('store unavailable');
            }
            await gates.get(m.value)!.promise;
            finished.push(m.value);
          },
          settled: () => void settled.push(m.value),
        }),
    });
    // All five taken at once; they finish in the order 4, 3, 0, 2 while 1 keeps failing.
    for (const v of ['v4', 'v3', 'v0', 'v2']) {
      gates.get(v)!.open();
      await until(`${v} finished`, () => finished.includes(v));
    }
    await until('v1 retried', () => v1Attempts >= 3);
    await stop(startedLast());
    expect(finished).toEqual(['v4', 'v3', 'v0', 'v2']);
    // v1 settles too (left uncommitted), so a service's per-key ordering never waits for it forever.
    expect([...settled].sort()).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);

    // Committed exactly up to v1 (offset 1): it and everything after it are read again.
    const again = await reReadAfterCommit(topic, groupId, 'k');
    expect(values(again)).toEqual(['v1', 'v2', 'v3', 'v4', 'sentinel']);
    expect(again[0].offset).toBe('1');
  });

  it('retries a retriable failure of deferred work with backoff, then commits it', async () => {
    const topic = await freshTopic('bus_deferred_retry');
    const groupId = uniqueName('g_deferred_retry');
    await produce(topic, ['v0', 'flaky', 'v2'].map((value) => ({ key: 'k', value })));
    let attempts = 0;
    const done: string[] = [];
    await consume({
      topic,
      groupId,
      handle: (m) =>
        Promise.resolve({
          run: () => {
            if (m.value === 'flaky' && ++attempts < 3) return Promise.reject(new RetriableError('database unavailable'));
            done.push(m.value);
            return Promise.resolve();
          },
        }),
    });
    await until('3 records done', () => done.length === 3);
    expect(attempts).toBe(3);
    expect([...done].sort()).toEqual(['flaky', 'v0', 'v2']);
    await stop(startedLast());
    expect(values(await reReadAfterCommit(topic, groupId, 'k'))).toEqual(['sentinel']);
  });

  it('sends deferred work that fails permanently to <topic>.dlq with origin and error, and commits past it', async () => {
    const topic = await freshTopic('bus_deferred_dlq');
    const groupId = uniqueName('g_deferred_dlq');
    await bus().ensureTopics([deadLetterTopic(topic)]);
    await produce(topic, ['v0', 'poison', 'v2'].map((value) => ({ key: 'k', value, headers: { origin: 'test' } })));
    const done: string[] = [];
    const taken = await consume({
      topic,
      groupId,
      handle: (m) =>
        Promise.resolve({
          run: () => (m.value === 'poison' ? Promise.reject(new PermanentError('unit refused: wrong project')) : Promise.resolve(void done.push(m.value))),
        }),
    });
    const dead = await consume({ topic: deadLetterTopic(topic), groupId: uniqueName('g_deferred_dlq_reader') });
    await until('1 dead-lettered record', () => dead.length >= 1);
    await until('v0 and v2 done', () => done.length === 2);
    await stop(startedLast(1));
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ topic: deadLetterTopic(topic), key: 'k', value: 'poison' });
    expect(dead[0].headers).toEqual({
      origin: 'test',
      error: 'unit refused: wrong project',
      'error-name': 'PermanentError',
      'original-topic': topic,
      'original-partition': String(taken[1].partition),
      'original-offset': '1',
    });
    expect(values(await reReadAfterCommit(topic, groupId, 'k'))).toEqual(['sentinel']);
  });

  const blockDeadLetters = harness.blockDeadLetters?.bind(harness);
  if (blockDeadLetters) it('retries a failing dead-letter send until it lands, and commits nothing past the record before', async () => {
    const topic = await freshTopic('bus_deferred_dlq_down');
    const groupId = uniqueName('g_deferred_dlq_down');
    await bus().ensureTopics([deadLetterTopic(topic)]);
    await produce(topic, ['v0', 'poison', 'v2'].map((value) => ({ key: 'k', value })));
    const unblock = await blockDeadLetters(bus(), topic);
    // Reading before the outage ends: an in-process bus drops what every reading group has committed.
    const dead = await consume({ topic: deadLetterTopic(topic), groupId: uniqueName('g_dlq_down_reader') });
    const ours = (): BusMessage[] => dead.filter((m) => m.value === 'poison');
    const failing: ConsumerOptions['handle'] = (m) =>
      Promise.resolve({ run: () => (m.value === 'poison' ? Promise.reject(new PermanentError('invalid unit')) : Promise.resolve()) });

    // 1. The dead-letter topic refuses: v0 and v2 finish, the poison record stays in flight.
    const first = await consume({ topic, groupId, handle: failing });
    await until('3 records taken', () => first.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the dead-letter send keeps failing meanwhile
    await stop(startedLast());

    // 2. Committed exactly below the poison record: a new member starts there, and lands it once the topic takes records again.
    const second = await consume({ topic, groupId, handle: failing });
    await until('the poison record again', () => second.length >= 1);
    expect(second[0]).toMatchObject({ value: 'poison', offset: '1' });
    expect(ours()).toEqual([]);
    await unblock();
    await until('the poison record in the dead-letter topic', () => ours().length >= 1);
    await until('v2 taken again', () => second.length >= 2);
    await stop(startedLast());
    expect(values(second)).toEqual(['poison', 'v2']);
    expect(ours()).toHaveLength(1);
    expect(ours()[0].headers).toMatchObject({ error: 'invalid unit', 'error-name': 'PermanentError', 'original-topic': topic, 'original-offset': '1' });

    // 3. Landed and committed: nothing is read again.
    expect(values(await reReadAfterCommit(topic, groupId, 'k'))).toEqual(['sentinel']);
  });

  it('on shutdown waits for deferred work in hand and leaves what is unfinished uncommitted', async () => {
    const topic = await freshTopic('bus_deferred_stop');
    const groupId = uniqueName('g_deferred_stop');
    await produce(topic, ['v0', 'v1', 'v2'].map((value) => ({ key: 'k', value })));
    const inHand = gated();
    const events: string[] = [];
    await consume({
      topic,
      groupId,
      handle: (m) =>
        Promise.resolve({
          run: async () => {
            if (m.value === 'v1') throw new RetriableError('judge unavailable');
            events.push(`start ${m.value}`);
            if (m.value === 'v0') await inHand.promise;
            events.push(`end ${m.value}`);
          },
        }),
    });
    await until('v0 and v2 started', () => events.includes('start v0') && events.includes('end v2'));
    const stopped = stop(startedLast()).then(() => events.push('stopped'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    inHand.open();
    await stopped;
    expect(events.filter((e) => e.endsWith('v0') || e === 'stopped')).toEqual(['start v0', 'end v0', 'stopped']);
    const again = await reReadAfterCommit(topic, groupId, 'k');
    expect(values(again)).toEqual(['v1', 'v2', 'sentinel']);
  });

  it('takes no new record while maxInFlight records have unfinished deferred work', async () => {
    const topic = await freshTopic('bus_deferred_full');
    await produce(topic, ['v0', 'v1', 'v2', 'v3'].map((value) => ({ key: 'k', value })));
    const gates = new Map(['v0', 'v1', 'v2', 'v3'].map((v) => [v, gated()]));
    const taken = await consume({ topic, groupId: uniqueName('g_deferred_full'), maxInFlight: 2, handle: (m) => Promise.resolve({ run: () => gates.get(m.value)!.promise }) });
    await until('2 records taken', () => taken.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 300)); // time enough to take more, were it allowed
    expect(values(taken)).toEqual(['v0', 'v1']);
    gates.get('v1')!.open();
    await until('a third record taken', () => taken.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(values(taken)).toEqual(['v0', 'v1', 'v2']);
    for (const g of gates.values()) g.open();
    await until('all 4 taken', () => taken.length === 4);
  });
}
