// The at-least-once contract of a window stage, run against the kit with a fake window: the unit
// test runs it over the in-process bus (shared/kit/stage/window-stage.test.ts), the integration test
// over Kafka (test/integration/stage/window-stage-kafka.test.ts). Each test uses its own topics and
// consumer group, and waits with a deadline instead of sleeping. "A crash" is a stage stopped
// without publishing what it holds: its commits are then exactly what they were while it ran.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, waitFor } from '../../../../test/helpers/infra.ts';
import { deadLetterTopic, type Bus, type BusMessage, type OutgoingMessage } from '../../../adapters/bus/index.ts';
import { RetriableError } from '../../../runtime/errors/index.ts';
import type { Component } from '../../../runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../runtime/logging/index.ts';
import { createWindowStage } from '../window-stage.ts';
import { buildFake, createFakeWindow, fakeRecords, parseFakeRecord, type FakeOutput, type FakeRecord } from './fake-window.ts';

export interface WindowStageContractHarness {
  /** Builds the bus for the suite; its retry backoff should be short (tens of ms). */
  create(): Promise<{ bus: Bus; close(): Promise<void> }>;
  waitTimeoutMs: number;
  /** Records go through the kit's batched intake (WindowStageDeps.resolve, identity here). */
  batched?: boolean;
}

/** Sends to `out` go through `gate` first: it may fail them or hold them back. */
function withGatedOutput(bus: Bus, out: string, gate: () => Promise<void>): Bus {
  return {
    ...bus,
    kind: bus.kind,
    createProducer() {
      const producer = bus.createProducer();
      return { ...producer, send: async (topic, messages) => (topic === out && (await gate()), producer.send(topic, messages)) };
    },
    createConsumer: (options) => bus.createConsumer(options),
    ensureTopics: (topics) => bus.ensureTopics(topics),
  };
}

export function describeWindowStageContract(name: string, harness: WindowStageContractHarness): void {
  describe(`Window stage contract: ${name}`, () => {
    let bus: Bus;
    let close: () => Promise<void> = () => Promise.resolve();
    const running: Component[] = [];
    const log = createSilentLogger();

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
      running.splice(running.indexOf(component), 1);
      await component.shutdown();
    };
    const until = <T>(description: string, condition: () => T | undefined | false): Promise<T> =>
      waitFor(() => condition(), { timeoutMs: harness.waitTimeoutMs, intervalMs: 10, description });

    const topicsFor = async (prefix: string) => {
      const t = { in: uniqueName(`${prefix}_in`), out: uniqueName(`${prefix}_out`), groupId: uniqueName(`g_${prefix}`) };
      await bus.ensureTopics([t.in, t.out, deadLetterTopic(t.in)]);
      return t;
    };
    // One key for every record: one partition, so that groups interleave in it.
    const send = async (topic: string, records: ReadonlyArray<FakeRecord | string>): Promise<void> => {
      const producer = await start(bus.createProducer());
      await producer.send(topic, records.map((r): OutgoingMessage => ({ key: 'k', value: typeof r === 'string' ? r : JSON.stringify(r) })));
      await stop(producer);
    };
    const collect = async (topic: string): Promise<BusMessage[]> => {
      const seen: BusMessage[] = [];
      await start(bus.createConsumer({ topic, groupId: uniqueName('g_probe'), handle: (m) => Promise.resolve(void seen.push(m)) }));
      return seen;
    };
    const outputsOf = (seen: readonly BusMessage[]): FakeOutput[] => seen.map((m) => JSON.parse(m.value) as FakeOutput);
    const runStage = async (t: { in: string; out: string; groupId: string }, options: { flushOnStop?: boolean; bus?: Bus; replay?: { maxRecords: number; maxAgeMs: number } } = {}) => {
      const window = createFakeWindow();
      const stage = createWindowStage(
        { name: 'fake-stage', in: t.in, out: t.out, groupId: t.groupId, tickMs: 10, flushOnStop: options.flushOnStop ?? false, ...(options.replay ? { replay: options.replay } : {}) },
        { bus: options.bus ?? bus, log, window, parse: parseFakeRecord, build: buildFake, records: fakeRecords, toMessage: (o) => ({ key: o.g, value: JSON.stringify(o) }), ...(harness.batched ? { resolve: (records: readonly FakeRecord[]) => Promise.resolve(records) } : {}) },
      );
      await start(stage);
      return { stage, window };
    };
    /** After the stage stopped: the records its group left uncommitted, read by the same group up to a marker. */
    const uncommitted = async (t: { in: string; groupId: string }): Promise<number[]> => {
      await send(t.in, [{ g: 'marker', n: -1 }]);
      const seen: FakeRecord[] = [];
      await start(bus.createConsumer({ topic: t.in, groupId: t.groupId, handle: (m) => Promise.resolve(void seen.push(parseFakeRecord(m.value))) }));
      await until('the marker', () => seen.some((r) => r.g === 'marker'));
      return seen.filter((r) => r.g !== 'marker').map((r) => r.n);
    };

    it('publishes each group once, whole, and commits everything once no group is open', async () => {
      const t = await topicsFor('stage_basic');
      const out = await collect(t.out);
      const { stage } = await runStage(t);
      await send(t.in, [{ g: 'A', n: 1 }, { g: 'B', n: 1 }, { g: 'A', n: 2, end: true }, { g: 'B', n: 2, end: true }]);
      await until('two outputs', () => out.length === 2);
      await stop(stage);
      expect(outputsOf(out).sort((a, b) => a.g.localeCompare(b.g))).toEqual([{ g: 'A', ns: [1, 2] }, { g: 'B', ns: [1, 2] }]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('hands a restarted stage the records below its commit to restore, parsed (not those that do not parse), and publishes nothing for them', async () => {
      const t = await topicsFor('stage_replay');
      const out = await collect(t.out);
      const replay = { maxRecords: 10, maxAgeMs: 600_000 };
      const first = await runStage(t, { replay });
      await send(t.in, [{ g: 'A', n: 1 }, 'not a record', { g: 'A', n: 2, end: true }]);
      await until('A published', () => out.length === 1);
      await stop(first.stage);
      expect(first.window.restored).toEqual([]);

      const second = await runStage(t, { replay });
      await send(t.in, [{ g: 'B', n: 1, end: true }]);
      await until('B published', () => out.length === 2);
      expect(second.window.restored.map(({ record, at }) => [record, at.offset])).toEqual([
        [{ g: 'A', n: 1 }, 0n],
        [{ g: 'A', n: 2, end: true }, 2n],
      ]);
      expect(outputsOf(out)).toEqual([
        { g: 'A', ns: [1, 2] },
        { g: 'B', ns: [1] },
      ]);
    });

    it('never commits the records of an open group', async () => {
      const t = await topicsFor('stage_open');
      const out = await collect(t.out);
      const { stage, window } = await runStage(t);
      await send(t.in, [{ g: 'A', n: 1 }, { g: 'B', n: 1, end: true }, { g: 'A', n: 2 }]);
      await until('B published and A held', () => out.length === 1 && window.held() === 2);
      await stop(stage);
      // A's first record holds back the commit, B's with it: B is published again after a restart.
      expect(await uncommitted(t)).toEqual([1, 1, 2]);
    });

    it('crash mid-publish: a restart publishes the group whole', async () => {
      const t = await topicsFor('stage_crash');
      const out = await collect(t.out);
      let attempts = 0;
      const failing = withGatedOutput(bus, t.out, () => Promise.reject(new RetriableError(`publish ${++attempts} refused`)));
      const first = await runStage(t, { bus: failing });
      await send(t.in, [{ g: 'A', n: 1 }, { g: 'A', n: 2 }, { g: 'A', n: 3, end: true }]);
      await until('a publish attempt', () => attempts >= 1);
      await stop(first.stage);
      expect(out).toHaveLength(0);
      const second = await runStage(t);
      await until('the output', () => out.length === 1);
      await stop(second.stage);
      expect(outputsOf(out)).toEqual([{ g: 'A', ns: [1, 2, 3] }]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('release: a failed publish is offered again until it lands, and published once', async () => {
      const t = await topicsFor('stage_release');
      const out = await collect(t.out);
      let attempts = 0;
      const flaky = withGatedOutput(bus, t.out, () => (++attempts <= 2 ? Promise.reject(new RetriableError('broker away')) : Promise.resolve()));
      const { stage, window } = await runStage(t, { bus: flaky });
      await send(t.in, [{ g: 'A', n: 1, end: true }]);
      await until('the output', () => out.length === 1);
      await until('A confirmed', () => window.openCount() === 0);
      await stop(stage);
      expect(attempts).toBe(3);
      expect(outputsOf(out)).toEqual([{ g: 'A', ns: [1] }]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('a record that joins a group while its output is published makes it publish again, with the record', async () => {
      const t = await topicsFor('stage_late');
      const out = await collect(t.out);
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let attempts = 0;
      const held = withGatedOutput(bus, t.out, () => (++attempts === 1 ? gate : Promise.resolve()));
      const { stage, window } = await runStage(t, { bus: held });
      await send(t.in, [{ g: 'A', n: 1, end: true }]);
      await until('the first publish', () => attempts === 1);
      await send(t.in, [{ g: 'A', n: 2 }]);
      await until('the late record held', () => window.held() === 2);
      open();
      await until('two outputs', () => out.length === 2);
      await until('A confirmed', () => window.openCount() === 0);
      await stop(stage);
      expect(outputsOf(out)).toEqual([{ g: 'A', ns: [1] }, { g: 'A', ns: [1, 2] }]);
      expect(window.confirmed).toEqual([{ g: 'A', ns: [1, 2] }]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('dead-letters a group that cannot be built, record by record with where each was read, and commits past it', async () => {
      const t = await topicsFor('stage_dead');
      const out = await collect(t.out);
      const dead = await collect(deadLetterTopic(t.in));
      const { stage, window } = await runStage(t);
      await send(t.in, [{ g: 'A', n: 1, bad: true }, { g: 'A', n: 2, end: true }, { g: 'B', n: 1, end: true }]);
      await until('B published and A dead-lettered', () => out.length === 1 && dead.length === 2);
      // B's output can be read before the stage has its acknowledgement: what is asserted here is
      // the commit past a dead-lettered group once both are settled, as in the tests above.
      await until('A and B settled', () => window.openCount() === 0);
      await stop(stage);
      expect(outputsOf(out)).toEqual([{ g: 'B', ns: [1] }]);
      expect(dead.map((m): unknown[] => [m.key, JSON.parse(m.value) as unknown, m.headers['original-topic'], m.headers['original-offset'], m.headers.error])).toEqual([
        ['A', { g: 'A', n: 1, bad: true }, t.in, '0', 'group A holds a bad record'],
        ['A', { g: 'A', n: 2, end: true }, t.in, '1', 'group A holds a bad record'],
      ]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('dead-letters a record that is not one, and goes on with the rest', async () => {
      const t = await topicsFor('stage_garbage');
      const out = await collect(t.out);
      const dead = await collect(deadLetterTopic(t.in));
      const { stage } = await runStage(t);
      await send(t.in, ['not json', { g: 'A', n: 1, end: true }]);
      await until('A published and the record dead-lettered', () => out.length === 1 && dead.length === 1);
      await stop(stage);
      expect(dead[0].value).toBe('not json');
      expect(dead[0].headers['error-name']).toBe('PermanentError');
      expect(await uncommitted(t)).toEqual([]);
    });

    it('never commits inside a published group: a restart re-reads it whole, never its tail', async () => {
      const t = await topicsFor('stage_straddle');
      const out = await collect(t.out);
      const first = await runStage(t);
      // A spans offsets 0–2 and is published; B opens at 1, inside A's range: committing below B
      // would leave A's tail (offset 2) to be read alone after a crash.
      await send(t.in, [{ g: 'A', n: 1 }, { g: 'B', n: 1 }, { g: 'A', n: 2, end: true }]);
      await until('A published', () => out.length === 1);
      await stop(first.stage);
      const second = await runStage(t);
      await send(t.in, [{ g: 'B', n: 2, end: true }]);
      await until('A again and B', () => out.length === 3);
      await stop(second.stage);
      expect(outputsOf(out)).toEqual([{ g: 'A', ns: [1, 2] }, { g: 'A', ns: [1, 2] }, { g: 'B', ns: [1, 2] }]);
      expect(await uncommitted(t)).toEqual([]);
    });

    it('with flushOnStop, publishes on stop what a forced take gives', async () => {
      const t = await topicsFor('stage_flush');
      const out = await collect(t.out);
      const { stage, window } = await runStage(t, { flushOnStop: true });
      await send(t.in, [{ g: 'A', n: 1 }]);
      await until('A held', () => window.held() === 1);
      await stop(stage);
      await until('the output', () => out.length === 1);
      expect(outputsOf(out)).toEqual([{ g: 'A', ns: [1] }]);
    });
  });
}
