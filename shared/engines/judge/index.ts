export { createOpenAiJudgeClient } from './openai-judge-client.ts';
export type { OpenAiJudgeClientOptions } from './openai-judge-client.ts';
export { createJudgeClient } from './create-judge-client.ts';
export type { JudgeClientConfig } from './create-judge-client.ts';
export { createResilientJudge } from './resilient-judge.ts';
export type { JudgeOperations, JudgeStats, ResilientJudge } from './resilient-judge.ts';
export { DEFAULT_PRICES, JudgeBudgetError, costUsd, withBudget } from './budget.ts';
export type { JudgeBudget, PriceTable } from './budget.ts';
export { JudgeRetriableError } from './judge-error.ts';
