import type { JudgeClient, JudgeRequest, JudgeResponse } from '../checks/index.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { createTokenBucket } from './token-bucket.ts';

/** USD per million input and output tokens, by model name. */
export type PriceTable = Readonly<Record<string, readonly [inputUsdPerMillion: number, outputUsdPerMillion: number]>>;

/** List prices of common judge models (USD per 1M tokens); `TRACECHECK_JUDGE_PRICES` adds or overrides. */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4o': [2.5, 10],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1-nano': [0.1, 0.4],
  'gpt-4.1': [2, 8],
  'o4-mini': [1.1, 4.4],
};

/** Cost of one call in USD, or null when the model has no price (a dated name falls back to its base: `gpt-4o-2024-08-06` → `gpt-4o`). */
export function costUsd(prices: PriceTable, model: string, inputTokens: number, outputTokens: number): number | null {
  const price = prices[model] ?? prices[model.replace(/-\d{4}-\d{2}-\d{2}$/, '')];
  if (!price) return null;
  return (inputTokens * price[0] + outputTokens * price[1]) / 1_000_000;
}

export interface JudgeBudget {
  callsPerMinute?: number;
  usdPerDay?: number;
}

/** A monitor's budget refused the call: the check ends as an error score with this reason, and is not retried. */
class JudgeBudgetError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'JudgeBudgetError';
  }
}

/**
 * A judge limited by one monitor's budget: calls per minute (a token bucket holding at most a
 * minute's worth) and spend per UTC day (token usage × price table). Over budget, a call fails at
 * once with why; it never waits. Cached answers spend nothing. Kept per scorer process.
 */
export function withBudget(judge: JudgeClient, budget: JudgeBudget, options: { owner: string; prices: PriceTable; now: () => number }) {
  const bucket = budget.callsPerMinute !== undefined ? createTokenBucket({ ratePerMinute: budget.callsPerMinute, burst: budget.callsPerMinute, now: options.now }) : null;
  let day = '';
  let spentUsd = 0;
  let calls = 0;
  let refused = 0;
  const today = (): string => new Date(options.now()).toISOString().slice(0, 10);
  const client: JudgeClient = {
    async complete(request: JudgeRequest): Promise<JudgeResponse> {
      if (today() !== day) {
        day = today();
        spentUsd = 0;
      }
      if (budget.usdPerDay !== undefined && spentUsd >= budget.usdPerDay) {
        refused += 1;
        throw new JudgeBudgetError(`judge budget of ${options.owner} exhausted: $${spentUsd.toFixed(4)} spent today (UTC) of $${budget.usdPerDay} per day`);
      }
      if (bucket && bucket.tryTake() > 0) {
        refused += 1;
        throw new JudgeBudgetError(`judge budget of ${options.owner} exhausted: more than ${budget.callsPerMinute} calls per minute`);
      }
      calls += 1;
      const answer = await judge.complete(request);
      if (!answer.cached) spentUsd += costUsd(options.prices, answer.model, answer.inputTokens, answer.outputTokens) ?? 0;
      return answer;
    },
  };
  return { ...client, usage: () => ({ calls, refused, spentUsd }) };
}
