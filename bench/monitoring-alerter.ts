import type { Store } from '../shared/store/index.ts';

/** One alerter pass over 100 rules on this store, in ms; null until the alerter exists. */
export function benchAlerter(_store: Store, _setup: { checks: string[]; versions: string[]; now: number }): Promise<number | null> {
  return Promise.resolve(null);
}
