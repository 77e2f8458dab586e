import type { ChatMessage, ToolCall } from '../../../../shared/contracts/schemas/index.ts';
import { isRecord, parseMaybeJson } from './values.ts';

// Bedrock Converse-style content blocks, which some frameworks (Strands Agents) record as message
// content: `[{"text": …}, {"toolUse": {toolUseId, name, input}}, {"toolResult": {toolUseId, status, content: [{text}|{json}]}}]`.

const BLOCK_KEYS = new Set(['text', 'toolUse', 'toolResult', 'image', 'document', 'video', 'reasoningContent', 'json', 'cachePoint', 'guardContent', 'citationsContent']);

function isBlock(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v) || v.type !== undefined) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => BLOCK_KEYS.has(k));
}

/** The blocks of a content value (a list, or its JSON text), or undefined when it is not Converse blocks. */
export function converseBlocks(v: unknown): Array<Record<string, unknown>> | undefined {
  const list = parseMaybeJson(v);
  return Array.isArray(list) && list.length > 0 && list.every(isBlock) ? list : undefined;
}

/** The text of blocks: text blocks, and structured `json` blocks as compact JSON. */
export function blocksText(blocks: ReadonlyArray<Record<string, unknown>>): string {
  const texts: string[] = [];
  for (const b of blocks) {
    if (typeof b.text === 'string') texts.push(b.text);
    else if (b.json !== undefined) texts.push(JSON.stringify(b.json));
  }
  return texts.join('\n');
}

export interface BlockContent {
  text: string | null;
  calls: ToolCall[];
  /** One `tool` message per toolResult block. */
  results: ChatMessage[];
}

/** Splits blocks into the turn's text, its tool calls (toolUse) and tool results (toolResult). */
export function readBlocks(blocks: ReadonlyArray<Record<string, unknown>>): BlockContent {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const b of blocks) {
    if (typeof b.text === 'string') texts.push(b.text);
    const use = b.toolUse;
    if (isRecord(use)) {
      const input = use.input;
      calls.push({
        id: typeof use.toolUseId === 'string' ? use.toolUseId : '',
        type: 'function',
        function: { name: typeof use.name === 'string' ? use.name : '', arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}) },
      });
    }
    const result = b.toolResult;
    if (isRecord(result)) {
      const content = Array.isArray(result.content) ? blocksText(result.content.filter(isRecord)) : typeof result.content === 'string' ? result.content : '';
      results.push({ role: 'tool', content, tool_call_id: typeof result.toolUseId === 'string' ? result.toolUseId : '' });
    }
  }
  return { text: texts.length > 0 ? texts.join('\n') : null, calls, results };
}
