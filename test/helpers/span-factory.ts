import type { ChatMessage, SpanGenAi, SpanRecord } from '../../shared/contracts/schemas/index.ts';

let counter = 0;

/** A span envelope with sensible defaults; times are milliseconds from `startMs` (default 1_700_000_000_000). */
export function createTestSpan(overrides: Partial<SpanRecord> & { genai?: SpanGenAi; startMs?: number; endMs?: number } = {}): SpanRecord {
  counter += 1;
  const { startMs = 1_700_000_000_000 + counter, endMs, ...rest } = overrides;
  const end = endMs ?? startMs + 10;
  return {
    schema_version: 1,
    kind: 'span',
    trace_id: 'a'.repeat(32),
    span_id: counter.toString(16).padStart(16, '0'),
    name: 'span',
    span_kind: 1,
    start_time_unix_nano: `${startMs}000000`,
    end_time_unix_nano: `${end}000000`,
    status: { code: 0 },
    service_name: 'demo-service',
    scope: { name: 'test' },
    attributes: {},
    resource_attributes: {},
    events: [],
    dropped_attributes_count: 0,
    genai: {},
    received_at_ms: end,
    ...rest,
  };
}

export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const system = (content: string): ChatMessage => ({ role: 'system', content });
export const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
export const toolCall = (id: string, name: string, args: Record<string, unknown>): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
export const toolResult = (id: string, content: string): ChatMessage => ({ role: 'tool', content, tool_call_id: id });
