import type { Logger } from '../../runtime/logging/index.ts';
import type { BackoffPolicy } from './backoff.ts';
import type { BusMessage, DeferredWork } from './contract.ts';
import { deliver, type DeliveryOutcome } from './deliver.ts';
import { createInFlightWindow } from './in-flight-window.ts';

export const DEFAULT_MAX_IN_FLIGHT = 256;

export interface DeferredDeliveryOptions {
  /** Records whose deferred work may be unfinished at once (over all partitions). */
  capacity: number;
  /** Their values' characters, at most (one record is always let in). Default: no bound. */
  capacityBytes?: number;
  deadLetter: (message: BusMessage, err: unknown) => Promise<void>;
  backoff: BackoffPolicy;
  /** Aborted on shutdown: retry waits end and the record stays uncommitted. */
  signal: AbortSignal;
  log: Logger;
}

/**
 * The consumer side of deferred completion, shared by both buses: runs the work a handler left
 * for later with the same retry and dead-letter rules as a handler (`deliver`), and holds each
 * partition's commit below its oldest record whose work is neither done nor dead-lettered.
 */
export function createDeferredDelivery(options: DeferredDeliveryOptions) {
  const window = createInFlightWindow(options.capacity, options.capacityBytes);
  return {
    /** Resolves when a new record may be taken (or on shutdown): the consumer's backpressure. */
    room(): Promise<void> {
      const { signal } = options;
      if (signal.aborted || !window.full()) return Promise.resolve();
      return new Promise((resolve) => {
        const onAbort = (): void => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        void window.room().then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
    /**
     * Delivers one record to the consumer's handler (`deliver`: retries, dead letter) and tracks the
     * work the handler left for later. `signal`: the consumer's own, when it stops sooner than shutdown.
     */
    async deliver(message: BusMessage, handle: (message: BusMessage) => Promise<void | DeferredWork>, signal: AbortSignal = options.signal): Promise<DeliveryOutcome> {
      let work: DeferredWork | null = null;
      const outcome = await deliver({
        message,
        handle: async (m) => {
          work = (await handle(m)) ?? null;
        },
        deadLetter: options.deadLetter,
        backoff: options.backoff,
        signal,
        log: options.log,
      });
      if (outcome === 'handled' && work) this.track(message, work);
      return outcome;
    },
    /** Starts the work of a handled record; its offset is held until the work is done or dead-lettered. */
    track(message: BusMessage, work: DeferredWork): void {
      const offset = BigInt(message.offset);
      window.add(message.partition, offset, message.value.length);
      deliver({ message, handle: () => work.run(), deadLetter: options.deadLetter, backoff: options.backoff, signal: options.signal, log: options.log })
        .catch((err: unknown) => {
          // A dead-letter topic that refuses the record for good: hold it, so it is read again after a restart.
          options.log.error({ err, topic: message.topic, partition: message.partition, offset: message.offset }, 'deferred record could not be dead-lettered; it stays uncommitted');
          return 'stopped' as const;
        })
        .then((outcome) => {
          if (outcome === 'stopped') window.abandon(message.partition, offset);
          else window.remove(message.partition, offset);
          work.settled?.();
        })
        .catch((err: unknown) => options.log.error({ err }, 'settled callback failed'));
    },
    /** What may be committed of `partition` given its last handled record and the consumer's own limit. */
    committable(partition: number, lastHandled: string, allowed: string | null): string | null {
      const held = window.committable(partition, lastHandled);
      if (held === null || allowed === null) return null;
      return BigInt(held) < BigInt(allowed) ? held : allowed;
    },
    /** Resolves once no deferred work runs (finished, dead-lettered or given up on shutdown). */
    drained: (): Promise<void> => window.drained(),
    size: (): number => window.size(),
    /** No new record may be taken until some work finishes (ConsumerOptions.maxInFlight, maxInFlightBytes). */
    full: (): boolean => window.full(),
  };
}
