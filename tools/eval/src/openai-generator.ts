import OpenAI from 'openai';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import type { Generation, GenerationRequest, Generator } from './generation.ts';

export interface OpenAiGeneratorOptions {
  /** From shared/runtime/config; a prompt file's base_url / api_key win. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  maxRetries?: number;
}

/** Chat completions through the `openai` client; parameters go to the API unchanged. */
export function createOpenAiGenerator(options: OpenAiGeneratorOptions): Generator {
  const clients = new Map<string, OpenAI>();
  const clientFor = (baseUrl: string | undefined, apiKey: string, timeoutMs: number): OpenAI => {
    const key = JSON.stringify([baseUrl, apiKey, timeoutMs]);
    let c = clients.get(key);
    if (!c) {
      c = new OpenAI({ baseURL: baseUrl, apiKey, timeout: timeoutMs, maxRetries: options.maxRetries ?? 2 });
      clients.set(key, c);
    }
    return c;
  };
  return {
    async generate(req: GenerationRequest): Promise<Generation> {
      if (!req.messages) throw new Error('a chat prompt needs messages');
      const baseUrl = req.baseUrl ?? options.baseUrl;
      // A local OpenAI-compatible server needs no key, but the client insists on one.
      const apiKey = req.apiKey ?? options.apiKey ?? 'not-needed';
      const client = clientFor(baseUrl, apiKey, req.timeoutMs);
      const body = { ...req.params, messages: req.messages, stream: false } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
      const res = await client.chat.completions.create(body);
      const msg = res.choices[0]?.message;
      const output = msg?.content ?? '';
      const reply: ChatMessage = { role: 'assistant', content: msg?.content ?? null };
      if (msg?.tool_calls?.length) {
        reply.tool_calls = msg.tool_calls.flatMap((t) => (t.type === 'function' ? [{ id: t.id, type: 'function' as const, function: { name: t.function.name, arguments: t.function.arguments } }] : []));
      }
      return { output, messages: [...req.messages, reply], cached: false };
    },
    close: () => Promise.resolve(),
  };
}
