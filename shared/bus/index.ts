export { TOPICS } from './contract.ts';
export type { Bus, BusMessage, Consumer, ConsumerOptions, OutgoingMessage, Producer } from './contract.ts';
