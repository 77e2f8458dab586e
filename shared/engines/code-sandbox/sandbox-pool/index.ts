export { createProcessPool } from './process-pool.ts';
export type { PoolJob, PoolOutcome, ProcessPool, ProcessPoolOptions, ProcessPoolStats } from './process-pool.ts';
export type { ProcessLimits } from './spawn-limited.ts';
export { networkIsolation } from './network-isolation.ts';
export type { NetworkIsolation } from './network-isolation.ts';
export { REFUSE_NETWORK_SOURCE } from './refuse-network-source.ts';
