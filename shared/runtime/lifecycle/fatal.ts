import { EventEmitter } from 'node:events';
import type { FatalError } from '../errors/index.ts';

// One per process: whichever component meets a FatalError (the bus, on a send) reports it here, and
// the service runner (runService, `up`) stops every component and exits non-zero with its message.
const fatal = new EventEmitter();
let reported: FatalError | null = null;

/** The process cannot go on: the first report stops it (later ones are the same failure, seen again). */
export function reportFatal(err: FatalError): void {
  if (reported) return;
  reported = err;
  fatal.emit('fatal', err);
}

/** Resolves with the first FatalError reported (at once when one was already). */
export function untilFatal(): { promise: Promise<FatalError>; cancel(): void } {
  let listener: ((err: FatalError) => void) | null = null;
  const promise = new Promise<FatalError>((resolve) => {
    if (reported) return resolve(reported);
    listener = resolve;
    fatal.once('fatal', resolve);
  });
  return { promise, cancel: () => void (listener && fatal.off('fatal', listener)) };
}
