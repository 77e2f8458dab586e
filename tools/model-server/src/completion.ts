import { hashHex } from './hash.ts';
import type { Reply } from './reply.ts';
import type { ChatRequest } from './request.ts';
import { countPromptTokens, countTextTokens } from './tokens.ts';

// A fixed creation time: content and metadata must not depend on the clock.
const CREATED = 1_700_000_000;
const FINGERPRINT = 'fp_tracecheck_mock';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usageOf(request: ChatRequest, reply: Reply): Usage {
  const prompt = countPromptTokens(request);
  let completion = countTextTokens(reply.content ?? '');
  for (const c of reply.toolCalls) completion += 3 + countTextTokens(c.name + c.arguments);
  completion = Math.max(completion, 1);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function completionId(request: ChatRequest): string {
  return `chatcmpl-${hashHex(request, 29)}`;
}

function toolCallsJson(reply: Reply): Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> {
  return reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
}

/** The non-streaming `chat.completion` object. */
export function completionBody(request: ChatRequest, reply: Reply): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: null };
  if (reply.toolCalls.length > 0) message.tool_calls = toolCallsJson(reply);
  return {
    id: completionId(request),
    object: 'chat.completion',
    created: CREATED,
    model: request.model,
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: usageOf(request, reply),
  };
}

/** Splits text into word-ish pieces so streams have several content chunks. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * The `chat.completion.chunk` objects of a stream, as OpenAI sends them: the role first, then the
 * content (or tool-call name, then its arguments), then the finish reason; usage in a last chunk
 * with no choices only when `stream_options.include_usage` asks for it.
 */
export function completionChunks(request: ChatRequest, reply: Reply): Array<Record<string, unknown>> {
  const base = { id: completionId(request), object: 'chat.completion.chunk', created: CREATED, model: request.model, system_fingerprint: FINGERPRINT };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: Array<Record<string, unknown>> = [chunk({ role: 'assistant', content: reply.toolCalls.length > 0 ? null : '', refusal: null })];
  for (const p of pieces(reply.content ?? '')) out.push(chunk({ content: p }));
  reply.toolCalls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    const half = Math.ceil(c.arguments.length / 2);
    for (const part of [c.arguments.slice(0, half), c.arguments.slice(half)]) {
      if (part.length > 0) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  out.push(chunk({}, reply.finishReason));
  if (request.stream_options?.include_usage) out.push({ ...base, choices: [], usage: usageOf(request, reply) });
  return out;
}
