import type { JudgeClient, JudgeRequest, JudgeResponse } from '../../../shared/checks/contract.ts';

/**
 * At most `concurrency` judge calls in flight; the rest wait in order. Keeps one busy unit from
 * taking every connection the provider allows.
 */
export function withConcurrencyLimit(judge: JudgeClient, concurrency: number): JudgeClient & { inFlight(): number; waiting(): number } {
  let active = 0;
  const queue: Array<() => void> = [];
  const acquire = (): Promise<void> => {
    if (active < concurrency) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(resolve));
  };
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else active -= 1;
  };
  return {
    async complete(request: JudgeRequest): Promise<JudgeResponse> {
      await acquire();
      try {
        return await judge.complete(request);
      } finally {
        release();
      }
    },
    inFlight: () => active,
    waiting: () => queue.length,
  };
}
