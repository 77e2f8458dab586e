import { z } from 'zod';

/** A tool call in the OpenAI chat shape. `arguments` is always a JSON string, as OpenAI sends it. */
const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * An audio part of a message, as the GenAI conventions carry it (`blob` / `uri` / `file` with
 * modality `audio`) or OpenAI sends it (`input_audio {data, format}`, an assistant's `audio
 * {data, transcript}`): base64 `content`, or where it lives (`uri`, `file_id`).
 */
const AudioPartSchema = z.object({
  mime_type: z.string().optional(),
  format: z.string().optional(),
  content: z.string().optional(),
  uri: z.string().optional(),
  file_id: z.string().optional(),
  transcript: z.string().optional(),
});
export type AudioPart = z.infer<typeof AudioPartSchema>;

/**
 * A message in the OpenAI chat shape: the lingua franca of judges and users.
 * `content` is text (multimodal parts are flattened to text by the normalizer) or null when an
 * assistant turn only calls tools.
 */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  /** Its audio parts (the empathy_score check's `{audio_messages}` / `{audio_output}`); text stays in `content`. */
  audio: z.array(AudioPartSchema).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A tool definition in the OpenAI `tools` shape. */
export const ToolDefinitionSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;
