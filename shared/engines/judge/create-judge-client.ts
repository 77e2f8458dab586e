import type { Logger } from 'pino';
import { createOpenAiJudgeClient } from './openai-judge-client.ts';
import { createResilientJudge, type JudgeOperations, type ResilientJudge } from './resilient-judge.ts';

export interface JudgeClientConfig extends JudgeOperations {
  baseUrl: string | undefined;
  apiKey: string;
  model: string;
}

/**
 * The one way a judge is built: the OpenAI-compatible endpoint, under the pool, rate limit,
 * retries, timeout, deadline, circuit breaker and cache of createResilientJudge.
 */
export function createJudgeClient(config: JudgeClientConfig, log?: Logger, hooks: { onRetry?: () => void } = {}): ResilientJudge {
  const raw = createOpenAiJudgeClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model, timeoutMs: config.timeoutMs, maxRetries: 0, ...(log ? { log } : {}) });
  return createResilientJudge(raw, config, { defaultModel: config.model, ...(log ? { log } : {}), ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}) });
}
