import type { ContentRefs, McpFields, ModalityTokens } from '../../../../../shared/contracts/schemas/index.ts';
import type { Attributes, DecodedScope } from '../../otlp/types.ts';
import { asString, take, takeNumber, takeString } from '../values.ts';

// What changed when the GenAI conventions left core OpenTelemetry (semantic conventions v1.42.0
// deprecated gen_ai.* and mcp.*; they continue in the semantic-conventions-genai repository, first
// release v0.1.0): the renamed attributes, the memory and plan operations, MCP spans and content
// recorded by reference. Both spellings are read; the scope's (or resource's) schema URL decides
// where one name means different things in the two.

/** Which names a span was written with: core semconv (1.36–1.41), the GenAI repository's, or not said. */
export type ConventionsEdition = 'core' | 'genai' | 'unknown';

export function editionOf(scope: DecodedScope): ConventionsEdition {
  const url = scope.schemaUrl;
  if (!url) return 'unknown';
  if (/\/schemas\/gen-?ai/i.test(url)) return 'genai';
  // Core semconv schema URLs are https://opentelemetry.io/schemas/1.NN.P; from 1.42 on, gen_ai.* is deprecated there.
  return /\/schemas\/1\.\d+(\.\d+)?$/.test(url) ? 'core' : 'unknown';
}

/**
 * The workflow an `invoke_workflow` span runs. Before the split it is `gen_ai.workflow.name`;
 * v0.1.0 names it `gen_ai.agent.name` (the span then names no agent of its own).
 */
export function takeWorkflowName(attrs: Attributes, edition: ConventionsEdition): string | undefined {
  // Left in the attributes: the unit's root attributes (monitor filters) keep naming the workflow.
  const old = asString(attrs['gen_ai.workflow.name']);
  if (edition === 'core') return old;
  if (old) return old;
  // v0.1.0: the workflow's name, not an agent's, so it names no agent of the steps beneath it.
  return takeString(attrs, 'gen_ai.agent.name');
}

/** `gen_ai.usage.cache_write.input_tokens` (v0.1.0) or `cache_creation` (before), by the schema's preference. */
export function takeCacheWrite(attrs: Attributes, edition: ConventionsEdition): number | undefined {
  const write = takeNumber(attrs, 'gen_ai.usage.cache_write.input_tokens');
  const creation = takeNumber(attrs, 'gen_ai.usage.cache_creation.input_tokens') ?? takeNumber(attrs, 'gen_ai.usage.cache_creation_input_tokens');
  return edition === 'core' ? (creation ?? write) : (write ?? creation);
}

const INPUT_MODALITIES = ['text', 'image', 'audio', 'video'] as const;
const OUTPUT_MODALITIES = ['text', 'audio'] as const;

function takeModalities(attrs: Attributes, modalities: readonly (keyof ModalityTokens)[], direction: 'input' | 'output'): ModalityTokens | undefined {
  const out: ModalityTokens = {};
  for (const m of modalities) {
    const n = takeNumber(attrs, `gen_ai.usage.${m}.${direction}_tokens`);
    if (n !== undefined) out[m] = n;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Per-modality token counts (v0.1.0), a subset of the input and output totals. */
export function takeUsageByModality(attrs: Attributes): { input?: ModalityTokens; output?: ModalityTokens } | undefined {
  const input = takeModalities(attrs, INPUT_MODALITIES, 'input');
  const output = takeModalities(attrs, OUTPUT_MODALITIES, 'output');
  if (!input && !output) return undefined;
  return { ...(input ? { input } : {}), ...(output ? { output } : {}) };
}

const MEMORY_OPERATIONS: ReadonlySet<string> = new Set([
  'search_memory',
  'create_memory',
  'update_memory',
  'upsert_memory',
  'delete_memory',
  'create_memory_store',
  'delete_memory_store',
]);

/** A memory operation's store and record count; the record ids, query and records themselves stay in attributes. */
export function takeMemory(attrs: Attributes, operation: string | undefined): { store_id?: string; record_count?: number } | undefined {
  if (!operation || !MEMORY_OPERATIONS.has(operation)) return undefined;
  const storeId = takeString(attrs, 'gen_ai.memory.store.id');
  const count = takeNumber(attrs, 'gen_ai.memory.record.count');
  return { ...(storeId ? { store_id: storeId } : {}), ...(count !== undefined ? { record_count: count } : {}) };
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** An MCP client or server span: `mcp.method.name` on a CLIENT or SERVER span. */
export function takeMcp(attrs: Attributes, spanKind: number): McpFields | undefined {
  const method = asString(attrs['mcp.method.name']);
  if (!method || (spanKind !== SPAN_KIND_CLIENT && spanKind !== SPAN_KIND_SERVER)) return undefined;
  take(attrs, 'mcp.method.name');
  const out: McpFields = { method, side: spanKind === SPAN_KIND_CLIENT ? 'client' : 'server' };
  const sessionId = takeString(attrs, 'mcp.session.id');
  const resource = takeString(attrs, 'mcp.resource.uri');
  const protocol = takeString(attrs, 'mcp.protocol.version');
  const requestId = take(attrs, 'jsonrpc.request.id');
  if (sessionId) out.session_id = sessionId;
  if (resource) out.resource_uri = resource;
  if (protocol) out.protocol_version = protocol;
  if (typeof requestId === 'string' || typeof requestId === 'number') out.request_id = String(requestId);
  return out;
}

const REF_KEYS: ReadonlyArray<[keyof ContentRefs, string]> = [
  ['input', 'gen_ai.input.messages'],
  ['output', 'gen_ai.output.messages'],
  ['system', 'gen_ai.system_instructions'],
];

/**
 * Content uploaded elsewhere, recorded as URIs: `gen_ai.input.messages.ref` (the `_ref` spelling
 * of the Python upload hook too), for the input, output and system instructions.
 */
export function takeContentRefs(attrs: Attributes): ContentRefs | undefined {
  const out: ContentRefs = {};
  for (const [field, key] of REF_KEYS) {
    const uri = takeString(attrs, `${key}.ref`) ?? takeString(attrs, `${key}_ref`);
    if (uri) out[field] = uri;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
