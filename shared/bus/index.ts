export { TOPICS } from './contract.ts';
export type { Bus, BusMessage, Consumer, ConsumerOptions, OutgoingMessage, Producer } from './contract.ts';
export { createInMemoryBus } from './in-memory-bus.ts';
export type { InMemoryBusOptions } from './in-memory-bus.ts';
export { deadLetterTopic } from './dead-letter.ts';
export { nextCommitOffset } from './commit-offset.ts';
export type { BackoffPolicy } from './backoff.ts';
