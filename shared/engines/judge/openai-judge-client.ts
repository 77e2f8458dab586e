import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import type { JudgeClient, JudgeRequest, JudgeResponse } from '../checks/index.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { JudgeRetriableError, retryAfterMsOf } from './judge-error.ts';

export interface OpenAiJudgeClientOptions {
  /** An OpenAI-compatible endpoint; unset means api.openai.com. */
  baseUrl: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** The openai client's own retries; default 0, because createJudgeClient retries with its own policy. */
  maxRetries?: number;
  log?: Logger;
  /** Replaces the HTTP transport (tests answer without a network). */
  fetch?: typeof fetch;
}

function statusOf(err: unknown): number | undefined {
  if (!(err instanceof OpenAI.APIError)) return undefined;
  const status: unknown = err.status;
  return typeof status === 'number' ? status : undefined;
}

/** The system and user messages; with audio, the user message is the text then one input_audio part per recording. */
function messagesOf(request: JudgeRequest, withAudio: boolean): ChatCompletionMessageParam[] {
  const audio = request.audio;
  if (!audio) return [{ role: 'system', content: request.system }, { role: 'user', content: request.user }];
  if (!withAudio) return [{ role: 'system', content: audio.textOnly.system }, { role: 'user', content: audio.textOnly.user }];
  return [
    { role: 'system', content: request.system },
    { role: 'user', content: [{ type: 'text', text: request.user }, ...audio.parts.map((p) => ({ type: 'input_audio' as const, input_audio: { data: p.data, format: p.format } }))] },
  ];
}

/** Judge models whose refusals are remembered, at most (per kind). */
const MAX_REMEMBERED = 256;

const audioRefusal = (model: string): string => `the judge model ${model} refused audio input (400)`;

/**
 * One chat completion over the `openai` npm client: the raw call under createJudgeClient. Errors
 * are marked retriable (with the provider's Retry-After) or permanent.
 */
export function createOpenAiJudgeClient(options: OpenAiJudgeClientOptions): JudgeClient {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries ?? 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Models that refused token probabilities or audio (400) once: asked without from then on, not
  // refused again on every call (one wasted round trip each). Model names come from check
  // definitions: at most MAX_REMEMBERED are kept, the oldest forgotten first.
  const refusedLogprobs = new Set<string>();
  const refusedAudio = new Set<string>();
  const remember = (set: Set<string>, model: string): void => {
    set.add(model);
    if (set.size > MAX_REMEMBERED) set.delete(set.values().next().value as string);
  };
  return {
    async complete(request: JudgeRequest): Promise<JudgeResponse> {
      const model = request.model ?? options.model;
      const started = Date.now();
      try {
        const call = (logprobs: boolean, withAudio: boolean) =>
          client.chat.completions.create({
            model,
            messages: messagesOf(request, withAudio),
            temperature: request.temperature ?? 0,
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
            ...(logprobs ? { logprobs: true, top_logprobs: 5 } : {}),
          }, request.signal ? { signal: request.signal } : undefined);
        let logprobs = request.tokenProbabilities === true && !refusedLogprobs.has(model);
        const hasAudio = (request.audio?.parts.length ?? 0) > 0;
        let withAudio = hasAudio && !refusedAudio.has(model);
        let audioNotHeard = hasAudio && !withAudio ? audioRefusal(model) : undefined;
        let res;
        for (;;) {
          try {
            res = await call(logprobs, withAudio);
            break;
          } catch (err) {
            if (statusOf(err) !== 400 || (!logprobs && !withAudio)) throw err;
            // Some models refuse logprobs (400): the check then reads the written number instead.
            if (logprobs) {
              options.log?.debug({ err, model }, 'judge refused token probabilities; asking without');
              logprobs = false;
              remember(refusedLogprobs, model);
              continue;
            }
            // A text-only model refuses input_audio (400): asked again with the text, the check says so.
            options.log?.debug({ err, model }, 'judge refused audio; asking with the text only');
            withAudio = false;
            remember(refusedAudio, model);
            audioNotHeard = audioRefusal(model);
          }
        }
        const text = res.choices[0]?.message?.content ?? '';
        const tokens = res.choices[0]?.logprobs?.content?.map((t) => ({ token: t.token, top: t.top_logprobs.map((a) => ({ token: a.token, logprob: a.logprob })) }));
        options.log?.debug({ model: res.model, latencyMs: Date.now() - started, inputTokens: res.usage?.prompt_tokens }, 'judge call done');
        return { text, model: res.model || model, inputTokens: res.usage?.prompt_tokens ?? 0, outputTokens: res.usage?.completion_tokens ?? 0, ...(tokens ? { tokens } : {}), ...(audioNotHeard ? { audioNotHeard } : {}) };
      } catch (err) {
        const status = statusOf(err);
        options.log?.warn({ err, model, status }, 'judge call failed');
        const message = err instanceof Error ? err.message : String(err);
        if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
          throw new PermanentError(`judge ${model} answered ${status}: ${message}`, { cause: err });
        }
        const headers: unknown = err instanceof OpenAI.APIError ? err.headers : undefined;
        const retryAfterMs = headers instanceof Headers ? retryAfterMsOf(headers, Date.now()) : null;
        throw new JudgeRetriableError(`judge ${model} failed${status !== undefined ? ` (${status})` : ''}: ${message}`, retryAfterMs, { cause: err });
      }
    },
  };
}
