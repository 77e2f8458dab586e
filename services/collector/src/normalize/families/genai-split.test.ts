import { describe, expect, it } from 'vitest';
import { SpanEnvelopeSchema, type SpanGenAi } from '../../../../../shared/contracts/schemas/index.ts';
import { decodeTraceRequestJson } from '../../otlp/decode-json.ts';
import { jsonTraceRequest, type SpanSpec } from '../../testing/otlp-builders.ts';
import { normalizeSpan } from '../normalize-span.ts';
import { editionOf } from './genai-split.ts';

const CORE = 'https://opentelemetry.io/schemas/1.41.0';
const GENAI = 'https://opentelemetry.io/schemas/gen-ai/0.1.0';

/** One span normalized under a scope with the given schema URL (none: undefined). */
function genaiOf(spec: SpanSpec, schemaUrl?: string): { genai: SpanGenAi; attributes: Record<string, unknown> } {
  const req = decodeTraceRequestJson(JSON.stringify(jsonTraceRequest([spec])));
  const rs = req.resourceSpans[0];
  const scope = { name: 'app', version: '', ...(schemaUrl ? { schemaUrl } : {}) };
  const env = normalizeSpan(rs.scopeSpans[0].spans[0], rs.resource, scope, { maxAttributeBytes: 1 << 20, receivedAtMs: 1 });
  expect(SpanEnvelopeSchema.safeParse(env).error).toBeUndefined();
  return { genai: env.genai, attributes: env.attributes };
}

describe('the conventions edition of a schema URL', () => {
  it.each([
    [undefined, 'unknown'],
    [CORE, 'core'],
    ['https://opentelemetry.io/schemas/1.37.0', 'core'],
    [GENAI, 'genai'],
    ['https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev', 'genai'],
    ['https://example.com/schemas/mine', 'unknown'],
  ])('%s → %s', (url, edition) => {
    expect(editionOf({ name: 'x', version: '', ...(url ? { schemaUrl: url } : {}) })).toBe(edition);
  });
});

describe('names that changed with the split', () => {
  const workflow = { name: 'invoke_workflow trip', attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.agent.name': 'trip-planner' } };

  it("invoke_workflow: v0.1.0's gen_ai.agent.name is the workflow, and names no agent", () => {
    expect(genaiOf(workflow, GENAI).genai).toEqual({ family: 'otel_genai', operation: 'invoke_workflow', workflow_name: 'trip-planner' });
    expect(genaiOf(workflow).genai).toEqual({ family: 'otel_genai', operation: 'invoke_workflow', workflow_name: 'trip-planner' });
  });

  it('invoke_workflow under a core schema: gen_ai.workflow.name is the workflow (kept in attributes), gen_ai.agent.name an agent', () => {
    const both = { ...workflow, attributes: { ...workflow.attributes, 'gen_ai.workflow.name': 'trip' } };
    const { genai, attributes } = genaiOf(both, CORE);
    expect(genai).toEqual({ family: 'otel_genai', operation: 'invoke_workflow', workflow_name: 'trip', agent_name: 'trip-planner' });
    expect(attributes['gen_ai.workflow.name']).toBe('trip');
  });

  it('cache writes: cache_write (v0.1.0) or cache_creation (before); with both, the schema says which', () => {
    const both = { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.cache_write.input_tokens': 7, 'gen_ai.usage.cache_creation.input_tokens': 9 } };
    expect(genaiOf(both, GENAI).genai.usage).toEqual({ input_tokens: 100, cache_creation_input_tokens: 7 });
    expect(genaiOf(both, CORE).genai.usage).toEqual({ input_tokens: 100, cache_creation_input_tokens: 9 });
    expect(genaiOf({ attributes: { 'gen_ai.usage.cache_write.input_tokens': 3 } }, CORE).genai.usage).toEqual({ cache_creation_input_tokens: 3 });
  });

  it('per-modality usage, a subset of the totals', () => {
    const attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.audio.input_tokens': 30, 'gen_ai.usage.video.input_tokens': 5, 'gen_ai.usage.audio.output_tokens': 12 };
    expect(genaiOf({ attributes: attrs }, GENAI).genai.usage_by_modality).toEqual({ input: { audio: 30, video: 5 }, output: { audio: 12 } });
  });

  it('memory operations: their store and record count; a store id on another operation is left alone', () => {
    expect(genaiOf({ attributes: { 'gen_ai.operation.name': 'delete_memory', 'gen_ai.memory.store.id': 's1', 'gen_ai.memory.record.count': 4, 'gen_ai.memory.record.id': 'mem_1' } }).genai).toEqual({
      family: 'otel_genai',
      operation: 'delete_memory',
      memory: { store_id: 's1', record_count: 4 },
    });
    expect(genaiOf({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.memory.store.id': 's1' } }).attributes['gen_ai.memory.store.id']).toBe('s1');
  });
});

describe('MCP spans', () => {
  const attributes = { 'mcp.method.name': 'prompts/get', 'mcp.session.id': 'sess-1', 'mcp.protocol.version': '2025-11-25', 'jsonrpc.request.id': 7 };

  it('a CLIENT or SERVER span with mcp.method.name: method, side, session, protocol version, request id (a number as text)', () => {
    expect(genaiOf({ kind: 3, attributes }).genai.mcp).toEqual({ method: 'prompts/get', side: 'client', session_id: 'sess-1', protocol_version: '2025-11-25', request_id: '7' });
    expect(genaiOf({ kind: 2, attributes }).genai.mcp?.side).toBe('server');
  });

  it('an INTERNAL span with mcp.method.name is not an MCP request: its attributes stay', () => {
    const { genai, attributes: kept } = genaiOf({ kind: 1, attributes });
    expect(genai.mcp).toBeUndefined();
    expect(kept['mcp.method.name']).toBe('prompts/get');
  });
});

describe('content by reference', () => {
  it('the .ref URIs (and the upload hook’s _ref spelling) instead of messages', () => {
    const attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages.ref': 's3://b/in.json', 'gen_ai.output.messages_ref': 'https://store/out.json', 'gen_ai.system_instructions.ref': 'file:///tmp/sys.json' };
    const { genai, attributes } = genaiOf({ attributes: attrs }, GENAI);
    expect(genai).toEqual({ family: 'otel_genai', operation: 'chat', content_refs: { input: 's3://b/in.json', output: 'https://store/out.json', system: 'file:///tmp/sys.json' } });
    expect(Object.entries(attributes).filter(([k, v]) => v !== undefined && (k.includes('messages') || k.includes('instructions')))).toEqual([]);
  });
});

describe('the document modality (v0.1.0)', () => {
  it('a document part is a placeholder in the message, like images and files', () => {
    const input = [{ role: 'user', parts: [{ type: 'text', content: 'Summarise this.' }, { type: 'uri', modality: 'document', uri: 'https://files.example/report.pdf' }] }];
    const { genai } = genaiOf({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': JSON.stringify(input) } }, GENAI);
    expect(genai.input_messages).toEqual([{ role: 'user', content: 'Summarise this.\n[document: https://files.example/report.pdf]' }]);
  });
});

describe('content by reference on the operation-details event', () => {
  it('reads the references from the event when the span has none', () => {
    const events = [{ name: 'gen_ai.client.inference.operation.details', attributes: { 'gen_ai.input.messages.ref': 'https://store/in.json', 'gen_ai.output.messages.ref': 'https://store/out.json' } }];
    expect(genaiOf({ attributes: { 'gen_ai.operation.name': 'chat' }, events }, GENAI).genai.content_refs).toEqual({ input: 'https://store/in.json', output: 'https://store/out.json' });
  });
});
