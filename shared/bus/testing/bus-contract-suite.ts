// One behavioural suite for every Bus implementation: shared/bus/in-memory-bus.test.ts runs it as a
// unit test, test/integration/bus/kafka-bus.test.ts against the real broker. Each test uses its
// own topic and consumer group, and waits with a deadline instead of sleeping.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from '../../../test/helpers/infra.ts';
import { PermanentError, RetriableError } from '../../errors/index.ts';
import type { Component } from '../../lifecycle/index.ts';
import type { Bus, BusMessage, ConsumerOptions, OutgoingMessage } from '../contract.ts';
import { deadLetterTopic } from '../dead-letter.ts';

export interface BusContractHarness {
  /** Builds the bus under test once for the suite; its retry backoff should be short (tens of ms). */
  create(): Promise<{ bus: Bus; close(): Promise<void> }>;
  /**
   * Makes every send to `<topic>.dlq` fail with a retriable error, the way the bus really fails,
   * until the returned function is called. An in-process bus fills the topic (BusFullError); a
   * one-broker Kafka has no such failure to provoke (min.insync.replicas is capped at the
   * replication factor), so its harness leaves this out and the test is not defined for it.
   */
  blockDeadLetters?(bus: Bus, topic: string): Promise<() => Promise<void>>;
  waitTimeoutMs: number;
}

/**
 * For an in-process bus created with `maxRetainedRecords: limit`: a reader that never finishes
 * plus `limit` filler records leave `<topic>.dlq` full, so the next send is refused (BusFullError).
 */
export async function blockInMemoryDeadLetters(bus: Bus, topic: string, limit: number): Promise<() => Promise<void>> {
  const dlq = deadLetterTopic(topic);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let read = 0;
  const blocker = bus.createConsumer({ topic: dlq, groupId: uniqueName('g_dlq_blocker'), handle: () => gate.then(() => void (read += 1)) });
  await blocker.start();
  const producer = bus.createProducer();
  await producer.start();
  await producer.send(dlq, Array.from({ length: limit }, (_, i) => ({ key: 'filler', value: `filler-${i}` })));
  await producer.shutdown();
  return async () => {
    release();
    // Once the reader has committed the fillers, the topic has room again.
    await waitFor(() => read >= limit || undefined, { timeoutMs: 5_000, description: 'the dead-letter reader caught up' });
    await blocker.shutdown();
  };
}

export function describeBusContract(name: string, harness: BusContractHarness): void {
  describe(`Bus contract: ${name}`, () => {
    let bus: Bus;
    let close: () => Promise<void> = () => Promise.resolve();
    const running: Component[] = [];

    beforeAll(async () => {
      const created = await harness.create();
      bus = created.bus;
      close = () => created.close();
    });
    afterAll(async () => {
      await close();
    });
    afterEach(async () => {
      for (const c of running.splice(0).reverse()) await c.shutdown();
    });

    const start = async <C extends Component>(component: C): Promise<C> => {
      running.push(component);
      await component.start();
      return component;
    };
    const stop = async (component: Component): Promise<void> => {
      await component.shutdown();
      const i = running.indexOf(component);
      if (i >= 0) running.splice(i, 1);
    };
    const freshTopic = async (prefix: string): Promise<string> => {
      const topic = uniqueName(prefix);
      await bus.ensureTopics([topic]);
      return topic;
    };
    const produce = async (topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
      const producer = await start(bus.createProducer());
      await producer.send(topic, messages);
      await stop(producer);
    };
    const consume = async (options: Omit<ConsumerOptions, 'handle'> & { handle?: ConsumerOptions['handle'] }): Promise<BusMessage[]> => {
      const seen: BusMessage[] = [];
      const handle = options.handle ?? (() => Promise.resolve());
      await start(
        bus.createConsumer({
          ...options,
          handle: async (m) => {
            const work = await handle(m);
            seen.push(m);
            return work;
          },
        }),
      );
      return seen;
    };
    const until = (description: string, condition: () => boolean): Promise<true> =>
      waitFor(() => condition() || undefined, { timeoutMs: harness.waitTimeoutMs, intervalMs: 20, description });
    const values = (messages: readonly BusMessage[]): string[] => messages.map((m) => m.value);

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
      await stop(running[running.length - 1]);
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
      await stop(running[running.length - 1]);
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
      await stop(running[running.length - 1]);

      const second = await consume({ topic, groupId });
      await until('3 re-read records', () => second.length >= 3);
      await produce(topic, [{ key: 'k', value: 'sentinel' }]);
      await until('the sentinel', () => second.some((m) => m.value === 'sentinel'));
      expect(values(second)).toEqual(['v0', 'v1', 'v2', 'sentinel']);
    });

    it('sends a permanently failing record to <topic>.dlq and goes on with the next', async () => {
      const topic = await freshTopic('bus_dlq');
      await bus.ensureTopics([deadLetterTopic(topic)]);
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
      const consumer = running[running.length - 1];
      const stopped = stop(consumer).then(() => events.push('stopped'));
      release();
      await stopped;
      expect(events).toEqual(['start slow', 'end slow', 'stopped']);
      expect(values(handled)).toEqual(['slow']);
    });
    /** A restarted member of `groupId` reads from the group's commit: the values it sees up to a sentinel. */
    const reReadAfterCommit = async (topic: string, groupId: string, key: string): Promise<BusMessage[]> => {
      const again = await consume({ topic, groupId });
      await produce(topic, [{ key, value: 'sentinel' }]);
      await until('the sentinel', () => again.some((m) => m.value === 'sentinel'));
      return again;
    };
    const gated = (): { promise: Promise<void>; open(): void } => {
      let open: () => void = () => undefined;
      const promise = new Promise<void>((resolve) => (open = resolve));
      return { promise, open };
    };

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
      await stop(running[running.length - 1]);
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
      await stop(running[running.length - 1]);
      expect(values(await reReadAfterCommit(topic, groupId, 'k'))).toEqual(['sentinel']);
    });

    it('sends deferred work that fails permanently to <topic>.dlq with origin and error, and commits past it', async () => {
      const topic = await freshTopic('bus_deferred_dlq');
      const groupId = uniqueName('g_deferred_dlq');
      await bus.ensureTopics([deadLetterTopic(topic)]);
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
      await stop(running[running.length - 2]);
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
      await bus.ensureTopics([deadLetterTopic(topic)]);
      await produce(topic, ['v0', 'poison', 'v2'].map((value) => ({ key: 'k', value })));
      const unblock = await blockDeadLetters(bus, topic);
      // Reading before the outage ends: an in-process bus drops what every reading group has committed.
      const dead = await consume({ topic: deadLetterTopic(topic), groupId: uniqueName('g_dlq_down_reader') });
      const ours = (): BusMessage[] => dead.filter((m) => m.value === 'poison');
      const failing: ConsumerOptions['handle'] = (m) =>
        Promise.resolve({ run: () => (m.value === 'poison' ? Promise.reject(new PermanentError('invalid unit')) : Promise.resolve()) });

      // 1. The dead-letter topic refuses: v0 and v2 finish, the poison record stays in flight.
      const first = await consume({ topic, groupId, handle: failing });
      await until('3 records taken', () => first.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 500)); // the dead-letter send keeps failing meanwhile
      await stop(running[running.length - 1]);

      // 2. Committed exactly below the poison record: a new member starts there, and lands it once the topic takes records again.
      const second = await consume({ topic, groupId, handle: failing });
      await until('the poison record again', () => second.length >= 1);
      expect(second[0]).toMatchObject({ value: 'poison', offset: '1' });
      expect(ours()).toEqual([]);
      await unblock();
      await until('the poison record in the dead-letter topic', () => ours().length >= 1);
      await until('v2 taken again', () => second.length >= 2);
      await stop(running[running.length - 1]);
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
      const stopped = stop(running[running.length - 1]).then(() => events.push('stopped'));
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
  });
}
