export { createProcessPool } from './process-pool.ts';
export type { PoolJob, PoolOutcome, ProcessPool, ProcessPoolOptions, ProcessPoolStats } from './process-pool.ts';
export type { ProcessLimits } from './spawn-limited.ts';
