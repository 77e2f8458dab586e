export { createProcessPool } from './process-pool.ts';
export type {  PoolOutcome, ProcessPool,  ProcessPoolStats } from './process-pool.ts';
;
;
;
export { REFUSE_NETWORK_SOURCE } from './refuse-network-source.ts';
