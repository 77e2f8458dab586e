import type { ChatRequest } from './request.ts';
import { messageText } from './request.ts';

/** Roughly OpenAI's count (about four characters per token), but deterministic and dependency-free. */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export function countPromptTokens(request: ChatRequest): number {
  let total = 3;
  for (const m of request.messages) {
    total += 4 + countTextTokens(messageText(m));
    for (const call of m.tool_calls ?? []) total += 3 + countTextTokens(call.function.name + call.function.arguments);
  }
  for (const tool of request.tools ?? []) total += 8 + countTextTokens(JSON.stringify(tool.function));
  return total;
}
