import OpenAI from 'openai';
import type { Logger } from 'pino';
import type { JudgeClient, JudgeRequest, JudgeResponse } from '../checks/index.ts';
import { PermanentError, RetriableError } from '../errors/index.ts';

export interface OpenAiJudgeClientOptions {
  /** An OpenAI-compatible endpoint; unset means api.openai.com. */
  baseUrl: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Retries on connection errors, 408, 409, 429 and 5xx, honoring Retry-After (the openai client's policy). */
  maxRetries?: number;
  log?: Logger;
  /** Called on every HTTP retry the client makes (for a retries counter). */
  onRetry?: () => void;
}

function statusOf(err: unknown): number | undefined {
  if (!(err instanceof OpenAI.APIError)) return undefined;
  const status: unknown = err.status;
  return typeof status === 'number' ? status : undefined;
}

/** A JudgeClient over the `openai` npm client. Errors after retries are marked retriable or permanent. */
export function createOpenAiJudgeClient(options: OpenAiJudgeClientOptions): JudgeClient {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries ?? 3,
    // The openai client numbers its attempts in a header; a non-zero number is a retry.
    ...(options.onRetry
      ? {
          fetch: (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
            if (Number(new Headers(init?.headers).get('x-stainless-retry-count') ?? 0) > 0) options.onRetry?.();
            return fetch(url, init);
          },
        }
      : {}),
  });
  return {
    async complete(request: JudgeRequest): Promise<JudgeResponse> {
      const model = request.model ?? options.model;
      const started = Date.now();
      try {
        const res = await client.chat.completions.create({
          model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.user },
          ],
          temperature: request.temperature ?? 0,
          ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        });
        const text = res.choices[0]?.message?.content ?? '';
        options.log?.debug({ model: res.model, latencyMs: Date.now() - started, inputTokens: res.usage?.prompt_tokens }, 'judge call done');
        return { text, model: res.model || model, inputTokens: res.usage?.prompt_tokens ?? 0, outputTokens: res.usage?.completion_tokens ?? 0 };
      } catch (err) {
        const status = statusOf(err);
        options.log?.warn({ err, model, status }, 'judge call failed');
        const message = err instanceof Error ? err.message : String(err);
        if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
          throw new PermanentError(`judge ${model} answered ${status}: ${message}`, { cause: err });
        }
        throw new RetriableError(`judge ${model} failed${status !== undefined ? ` (${status})` : ''}: ${message}`, { cause: err });
      }
    },
  };
}
