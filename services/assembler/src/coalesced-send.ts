import type { OutgoingMessage } from '../../../shared/adapters/bus/index.ts';

/**
 * Records handed over one at a time, sent in batches: the first goes at once, and what comes in
 * while a send is in flight goes together in the next one (up to `maxBatch`). The Kafka producer
 * is idempotent with one request in flight per broker, so one send per record made the session
 * router a produce round trip per unit: ~20 units/s on the loaded 2-core machine against 100 coming
 * in (bench/results/kafka-soak.md). Each record's promise settles with its batch's send; a failed
 * batch rejects every record of it, which the bus then retries one by one. A caller that sends the
 * next record of a key only once the previous one settled (the record stage's keyed order) keeps
 * that order.
 */
export function createCoalescedSend(send: (messages: OutgoingMessage[]) => Promise<void>, maxBatch = 500): (message: OutgoingMessage) => Promise<void> {
  const pending: Array<{ message: OutgoingMessage; done: () => void; failed: (err: unknown) => void }> = [];
  let sending = false;
  const drain = async (): Promise<void> => {
    sending = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, maxBatch);
      try {
        await send(batch.map((p) => p.message));
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.failed(err);
      }
    }
    sending = false;
  };
  return (message) => {
    const settled = new Promise<void>((done, failed) => pending.push({ message, done, failed }));
    if (!sending) void drain();
    return settled;
  };
}
