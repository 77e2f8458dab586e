import { z } from 'zod';
import { usageOf } from './completion.ts';
import { hashHex } from './hash.ts';
import type { Reply } from './reply.ts';
import type { ChatRequest, RequestMessage } from './request.ts';
import { ChatRequestSchema } from './request.ts';

const CREATED = 1_700_000_000;

// Lenient like the chat schema: the Responses API has many optional fields the server ignores.
const InputItemSchema = z.looseObject({
  type: z.string().optional(),
  role: z.string().optional(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  output: z.unknown().optional(),
});

// The Responses API's function tools are flat (`{type: "function", name, parameters}`); built-in
// tools (web search, file search) have no name and are not offered to the agent rules.
const ResponsesToolSchema = z.looseObject({
  type: z.string(),
  name: z.string().optional(),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const ResponsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItemSchema).min(1)]),
  instructions: z.string().nullable().optional(),
  tools: z.array(ResponsesToolSchema).nullable().optional(),
  temperature: z.number().nullable().optional(),
  stream: z.boolean().nullable().optional(),
});

export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/** The same conversation as a chat request, so one set of rules answers both APIs. */
export function responsesToChat(request: ResponsesRequest): ChatRequest {
  const messages: RequestMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else {
    for (const item of request.input) {
      if (item.type === 'function_call') {
        const call = { id: item.call_id ?? '', type: 'function', function: { name: item.name ?? '', arguments: item.arguments ?? '{}' } };
        // Calls made in one turn are consecutive items: one assistant message, as in chat.
        const last = messages.at(-1);
        if (last?.role === 'assistant' && last.tool_calls && !last.content) last.tool_calls.push(call);
        else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      } else if (item.type === 'function_call_output') messages.push({ role: 'tool', content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? ''), tool_call_id: item.call_id ?? '' });
      else if (item.role) {
        const c = item.content;
        messages.push({ role: item.role, content: typeof c === 'string' ? c : (c ?? []).map((p) => ({ type: 'text', text: p.text ?? '' })) });
      }
    }
  }
  const tools = (request.tools ?? []).flatMap((t) =>
    t.type === 'function' && t.name ? [{ type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), ...(t.parameters ? { parameters: t.parameters } : {}) } }] : [],
  );
  return ChatRequestSchema.parse({
    model: request.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
  });
}

/** The non-streaming `response` object: the answer as one output message (or function calls). */
export function responsesBody(request: ResponsesRequest, chat: ChatRequest, reply: Reply): Record<string, unknown> {
  const id = hashHex({ responses: request }, 24);
  const usage = usageOf(chat, reply);
  const output: Array<Record<string, unknown>> =
    reply.toolCalls.length > 0
      ? reply.toolCalls.map((c) => ({ type: 'function_call', id: `fc_${id}_${c.id}`, call_id: c.id, name: c.name, arguments: c.arguments, status: 'completed' }))
      : [{ type: 'message', id: `msg_${id}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.content ?? '', annotations: [] }] }];
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: CREATED,
    status: 'completed',
    model: request.model,
    output,
    instructions: request.instructions ?? null,
    temperature: request.temperature ?? null,
    usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
  };
}
