import { z } from 'zod';

// Lenient on purpose: instrumentations and SDKs send many optional fields we do not use, and the
// server should answer them the way OpenAI would rather than reject them.
// Other parts (`input_audio {data, format}`, images) pass through for the model to check (audio.ts).
const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const ToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const RequestMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

const ToolSchema = z.looseObject({
  type: z.string(),
  function: z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(RequestMessageSchema).min(1),
  tools: z.array(ToolSchema).optional(),
  temperature: z.number().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});

export type ChatRequest = z.infer<typeof ChatRequestSchema>;
export type RequestMessage = z.infer<typeof RequestMessageSchema>;
export type RequestTool = z.infer<typeof ToolSchema>;

/** Text of a message: string content as is, text parts joined, anything else empty. */
export function messageText(message: RequestMessage): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

/** The system prompt: every system (or developer) message, joined. */
export function systemText(request: ChatRequest): string {
  return request.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map(messageText)
    .join('\n');
}

export function lastUserText(request: ChatRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role === 'user') return messageText(m);
  }
  return '';
}
