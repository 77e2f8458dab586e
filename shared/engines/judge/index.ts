export { createOpenAiJudgeClient } from './openai-judge-client.ts';
;
export { createJudgeClient } from './create-judge-client.ts';
;
;
export type {   ResilientJudge } from './resilient-judge.ts';
export { DEFAULT_PRICES,  costUsd, withBudget } from './budget.ts';
export type {  PriceTable } from './budget.ts';
;
