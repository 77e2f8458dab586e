import { afterAll, afterEach, beforeAll } from 'vitest';
import { uniqueName, waitFor } from '../../../../test/helpers/infra.ts';
import type { Component } from '../../../runtime/lifecycle/index.ts';
import type { Bus, BusMessage, ConsumerOptions, OutgoingMessage } from '../contract.ts';

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

/** What the contract's tests share: the bus under test and the components they started. */
export type BusContractFixture = ReturnType<typeof useBusContractFixture>;

/**
 * Creates the bus before the suite and closes it after; shuts down what a test started when it
 * ends. Call inside a `describe`: it registers the hooks there.
 */
export function useBusContractFixture(harness: BusContractHarness) {
  let bus: Bus | null = null;
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

  const theBus = (): Bus => {
    if (!bus) throw new Error('the bus under test is created in beforeAll');
    return bus;
  };
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
  /** The component started last but `back` (0: the last one). */
  const startedLast = (back = 0): Component => running[running.length - 1 - back];
  const freshTopic = async (prefix: string): Promise<string> => {
    const topic = uniqueName(prefix);
    await theBus().ensureTopics([topic]);
    return topic;
  };
  const produce = async (topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
    const producer = await start(theBus().createProducer());
    await producer.send(topic, messages);
    await stop(producer);
  };
  const consume = async (options: Omit<ConsumerOptions, 'handle'> & { handle?: ConsumerOptions['handle'] }): Promise<BusMessage[]> => {
    const seen: BusMessage[] = [];
    const handle = options.handle ?? (() => Promise.resolve());
    await start(
      theBus().createConsumer({
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
  /** A restarted member of `groupId` reads from the group's commit: the values it sees up to a sentinel. */
  const reReadAfterCommit = async (topic: string, groupId: string, key: string): Promise<BusMessage[]> => {
    const again = await consume({ topic, groupId });
    await produce(topic, [{ key, value: 'sentinel' }]);
    await until('the sentinel', () => again.some((m) => m.value === 'sentinel'));
    return again;
  };
  return { bus: theBus, stop, startedLast, freshTopic, produce, consume, until, reReadAfterCommit };
}

export const values = (messages: readonly BusMessage[]): string[] => messages.map((m) => m.value);

export const gated = (): { promise: Promise<void>; open(): void } => {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
};
