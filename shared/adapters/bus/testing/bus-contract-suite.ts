// One behavioural suite for every Bus implementation: shared/adapters/bus/in-memory-bus.test.ts runs it as a
// unit test, test/integration/bus/kafka-bus.test.ts against the real broker. Each test uses its
// own topic and consumer group, and waits with a deadline instead of sleeping.
import { describe } from 'vitest';
import { uniqueName, waitFor } from '../../../../test/helpers/infra.ts';
import type { Bus } from '../contract.ts';
import { deadLetterTopic } from '../dead-letter.ts';
import { useBusContractFixture, type BusContractHarness } from './bus-contract-fixture.ts';
import { describeDeferredWorkContract } from './deferred-work-contract.ts';
import { describeDeliveryContract } from './delivery-contract.ts';
import { describeReplayContract } from './replay-contract.ts';

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
    const fx = useBusContractFixture(harness);
    describeDeliveryContract(fx);
    describeDeferredWorkContract(fx, harness);
    describeReplayContract(fx);
  });
}
