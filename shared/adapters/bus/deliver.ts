import { FatalError, isRetriable } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { backoffDelayMs, sleepUnlessAborted, type BackoffPolicy } from './backoff.ts';
import type { BusMessage } from './contract.ts';

export type DeliveryOutcome = 'handled' | 'dead-lettered' | 'stopped';

export interface DeliverOptions {
  message: BusMessage;
  handle: (message: BusMessage) => Promise<void>;
  deadLetter: (message: BusMessage, err: unknown) => Promise<void>;
  backoff: BackoffPolicy;
  /** Aborted on shutdown: ends a backoff wait early; a running handle is awaited, not cut off. */
  signal: AbortSignal;
  log: Logger;
}

/**
 * Runs the handler for one record until it succeeds, fails permanently (the record goes to the
 * dead-letter topic), or the consumer stops while waiting to retry. A retriable failure is never
 * skipped: the caller must not commit past a 'stopped' record, so it is read again.
 */
export async function deliver(options: DeliverOptions): Promise<DeliveryOutcome> {
  const { message, log } = options;
  const where = { topic: message.topic, partition: message.partition, offset: message.offset };
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal.aborted) return 'stopped';
    try {
      await options.handle(message);
      return 'handled';
    } catch (err) {
      if (err instanceof FatalError) {
        // The service stops (the bus reported it): the record stays uncommitted, not dead-lettered,
        // and is not tried again meanwhile (a consumer re-reads a 'stopped' record at once).
        log.error({ err, ...where }, 'record cannot be handled while this failure lasts; the service stops');
        while (await sleepUnlessAborted(60_000, options.signal));
        return 'stopped';
      }
      if (!isRetriable(err)) {
        log.error({ err, ...where }, 'record failed permanently; sending it to the dead-letter topic');
        return (await deadLetterWithRetry(options, err)) ? 'dead-lettered' : 'stopped';
      }
      // Stopping: the record is read again by the next consumer; work cut off by the stop is no failure to warn of (a stage may hold thousands).
      if (options.signal.aborted) {
        log.debug({ err, ...where }, 'record not finished before the stop; it is read again');
        return 'stopped';
      }
      const delayMs = backoffDelayMs(attempt, options.backoff);
      log.warn({ err, ...where, attempt: attempt + 1, delayMs }, 'record failed; retrying');
      if (!(await sleepUnlessAborted(delayMs, options.signal))) return 'stopped';
    }
  }
}

async function deadLetterWithRetry(options: DeliverOptions, cause: unknown): Promise<boolean> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await options.deadLetter(options.message, cause);
      return true;
    } catch (err) {
      // A dead-letter topic that refuses the record for good leaves nothing safe to do but stop.
      if (!isRetriable(err)) throw err;
      const delayMs = backoffDelayMs(attempt, options.backoff);
      options.log.warn({ err, attempt: attempt + 1, delayMs }, 'dead-letter send failed; retrying');
      if (!(await sleepUnlessAborted(delayMs, options.signal))) return false;
    }
  }
}
