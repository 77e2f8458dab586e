import type { BreakerRefusal } from '../../../runtime/flow/index.ts';

/** Why a check's evaluations are refused while its breaker is open, for the check's author. */
export function pauseMessage(refusal: BreakerRefusal, nowMs: number): string {
  return `paused until ${new Date(nowMs + refusal.retryInMs).toISOString()}: its last ${refusal.failures} evaluations each cost a sandbox process (the last: ${refusal.lastReason})`;
}
