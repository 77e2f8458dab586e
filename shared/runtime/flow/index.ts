// Small mechanisms of flow control, one copy each for the whole code base: a breaker (per call or
// per key), a concurrency limiter (and bounded parallel work on it, and one fair between keys), an abort signal linked to
// longer-lived ones, a seeded PRNG, a serial queue (plain or per key) and a time slicer for long
// synchronous work. Look here before writing one.
export { createBreaker, createKeyedBreaker } from './breaker.ts';
export type {   BreakerRefusal, BreakerState,  } from './breaker.ts';
export { createFairLimiter } from './fair-limiter.ts';
;
export { createLimiter, forEachLimited } from './limiter.ts';
;
export { linkAbort } from './linked-abort.ts';
export type { LinkedAbort } from './linked-abort.ts';
export { createPrng } from './prng.ts';
export type { Random } from './prng.ts';
export { createKeyedSerialQueue, createSerialQueue } from './serial-queue.ts';
;
export { createTimeSlicer, runAtOnce, runInSlices,  } from './time-slicer.ts';
;
