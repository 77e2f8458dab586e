import type { SpanRecord } from '../../../shared/contracts/schemas/index.ts';

/**
 * MCP server spans that answer a client span of the same trace: the server's side of one request
 * whose client side is already a step (context crossed the boundary in `params._meta`). The
 * request is one tool call and one step, read from the client's span; the server's span fills in
 * what the client's lacks (its result, error, session) through `mcpPairs`.
 */
export function mcpPairs(spans: readonly SpanRecord[]): Map<SpanRecord, SpanRecord> {
  const byId = new Map(spans.map((s) => [s.span_id, s]));
  const pairs = new Map<SpanRecord, SpanRecord>();
  for (const s of spans) {
    const m = s.genai.mcp;
    if (m?.side !== 'server' || !s.parent_span_id) continue;
    const client = byId.get(s.parent_span_id);
    const c = client?.genai.mcp;
    if (!client || c?.side !== 'client' || c.method !== m.method) continue;
    if (c.request_id !== undefined && m.request_id !== undefined && c.request_id !== m.request_id) continue;
    pairs.set(s, client);
  }
  return pairs;
}
