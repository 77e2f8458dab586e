import type { McpFields, MemoryStep, ModelStep, ModelTotals, SpanRecord, TokenUsage, ToolStep, UnitStep, UnitToolCall } from '../../../shared/contracts/schemas/index.ts';
import { callCostUsd, type PricedTable } from '../../../shared/engines/pricing/index.ts';
import { mcpPairs } from './mcp-spans.ts';
import { createAgentResolver } from './model-calls.ts';
import { ancestorsOf, STATUS_ERROR } from './span-tree.ts';

// The steps of a run: its model calls, tool executions and hand-offs between agents, and
// the unit's figures derived from them. One linear pass over the spans; everything copied from a
// span is cut to a bound, and the list itself is capped (the counts and totals still cover all).

/** Steps kept per unit; past it the unit says how many were left out (`steps_dropped`). */
export const MAX_STEPS = 1_000;
/** Models with their own entry in `tokens_by_model`; the rest are summed under `other`. */
export const MAX_MODELS = 32;
const MAX_NAME_CHARS = 200;
const MAX_ERROR_CHARS = 500;

const MEMORY_OPERATIONS = new Set(['search_memory', 'create_memory', 'update_memory', 'upsert_memory', 'delete_memory', 'create_memory_store', 'delete_memory_store']);
const MODEL_OPERATIONS = new Set(['chat', 'generate_content', 'text_completion', 'completion', 'embeddings', 'llm']);
const cut = (s: string, max: number): string => (s.length > max ? s.slice(0, max) : s);
const cutOrNull = (s: string | undefined | null, max: number): string | null => (s === undefined || s === null || s === '' ? null : cut(s, max));
/** ms to the microsecond, so that sums and comparisons of figures are stable. */
const ms = (x: number): number => Math.round(x * 1000) / 1000;
/** USD in whole nano-dollars: sums are exact, and n / 1e9 is the nearest double to the decimal. */
const nanoUsd = (usd: number): number => Math.round(usd * 1e9);

export function isModelCall(s: SpanRecord): boolean {
  const g = s.genai;
  if (g.tool_execution) return false;
  // An agent run's totals, a tool, a workflow: not a model call even with a model or usage on it.
  if (g.operation !== undefined) return MODEL_OPERATIONS.has(g.operation);
  return g.usage !== undefined || g.request_model !== undefined || g.response_model !== undefined;
}

function secondsAttr(s: SpanRecord, key: string, scale: number): number | undefined {
  const v = s.attributes[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? ms(n * scale) : undefined;
}

/**
 * Time to first token where the instrumentation records it: the OTel `gen_ai.server.time_to_first_token`,
 * `gen_ai.client.inference.time_to_first_chunk` (GenAI conventions v0.1.0), `gen_ai.response.time_to_first_chunk`
 * and `gen_ai.client.operation.time_to_first_chunk` (seconds), the AI SDK's `ai.response.msToFirstChunk`.
 * Strands writes the first in whole milliseconds: a value that cannot be seconds (longer than the
 * call itself) but fits as milliseconds is read as those.
 */
const TTFT_SECONDS_KEYS = [
  'gen_ai.server.time_to_first_token',
  'gen_ai.client.inference.time_to_first_chunk',
  'gen_ai.response.time_to_first_chunk',
  'gen_ai.client.operation.time_to_first_chunk',
];

function ttftMs(s: SpanRecord, latencyMs: number): number | undefined {
  const seconds = TTFT_SECONDS_KEYS.reduce<number | undefined>((found, key) => found ?? secondsAttr(s, key, 1000), undefined);
  if (seconds !== undefined) return seconds > latencyMs + 1 && seconds / 1000 <= latencyMs + 1 ? ms(seconds / 1000) : seconds;
  return secondsAttr(s, 'ai.response.msToFirstChunk', 1);
}

/** Decimal nanoseconds to ms, to the microsecond (microseconds since the epoch fit a double exactly). */
const microsToMs = (nanos: string): number => (nanos.length > 3 ? Number(nanos.slice(0, -3)) / 1000 : 0);

const count = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);

export interface StepFigures {
  steps: UnitStep[];
  steps_dropped?: number;
  duration_ms: number;
  llm_calls: number;
  tool_call_count: number;
  tool_errors: number;
  tokens_by_model: Record<string, ModelTotals>;
  cost_usd: number;
  unpriced_llm_calls: number;
  price_table: string;
}

export interface StepInput {
  /** Sorted by start (then end). */
  spans: readonly SpanRecord[];
  toolCalls: readonly UnitToolCall[];
  startMs: number;
  endMs: number;
  prices: PricedTable;
}

/** The steps and step figures of one trace unit. Pure. */
export function stepsOf(input: StepInput): StepFigures {
  const { spans, prices, startMs } = input;
  const agentOf = createAgentResolver(spans);
  const candidates = spans.filter(isModelCall);
  // A wrapper that looks like a call (a framework's span around the provider's) is not a call of its own.
  const wrappers = ancestorsOf(candidates, spans);
  const raw: UnitStep[] = [];
  const totals = new Map<string, ModelTotals & { nano: number | null }>();
  let costNano = 0;
  let unpriced = 0;
  const folded = mcpPairs(spans);
  const serverOf = new Map([...folded].map(([server, client]) => [client, server]));
  for (const s of spans) {
    if (folded.has(s)) continue;
    const begin = microsToMs(s.start_time_unix_nano);
    const start = ms(begin - startMs);
    const latency = ms(Math.max(0, microsToMs(s.end_time_unix_nano) - begin));
    const agent = cutOrNull(agentOf(s), MAX_NAME_CHARS);
    const failed = s.status.code === STATUS_ERROR;
    const server = serverOf.get(s);
    const exec = s.genai.tool_execution ?? server?.genai.tool_execution;
    if (exec || s.genai.mcp) {
      const error = exec?.error ?? (failed ? (s.status.message ?? 'tool span ended with error status') : undefined);
      const name = exec?.name ?? mcpTarget(s.genai.mcp!);
      const step: ToolStep = { type: 'tool', span_id: s.span_id, agent, start_ms: start, name: cut(name, MAX_NAME_CHARS), call_id: cutOrNull(exec?.call_id, MAX_NAME_CHARS), latency_ms: latency, status: error === undefined ? 'ok' : 'error' };
      if (error !== undefined) step.error = cut(error, MAX_ERROR_CHARS);
      if (s.genai.mcp) step.mcp = cutMcp({ ...server?.genai.mcp, ...s.genai.mcp });
      raw.push(step);
      continue;
    }
    const op = s.genai.operation;
    if (op === 'plan' || (op !== undefined && MEMORY_OPERATIONS.has(op))) {
      const status = failed ? 'error' : 'ok';
      const error = failed ? cut(s.status.message || `${op} ended with error status`, MAX_ERROR_CHARS) : undefined;
      if (op === 'plan') {
        raw.push({ type: 'plan', span_id: s.span_id, agent, start_ms: start, name: cut(s.name, MAX_NAME_CHARS), latency_ms: latency, status, ...(error ? { error } : {}) });
      } else {
        const m = s.genai.memory ?? {};
        const step: MemoryStep = { type: 'memory', span_id: s.span_id, agent, start_ms: start, operation: op, store_id: cutOrNull(m.store_id, MAX_NAME_CHARS), record_count: m.record_count ?? null, latency_ms: latency, status };
        if (error) step.error = error;
        raw.push(step);
      }
      continue;
    }
    if (!isModelCall(s) || wrappers.has(s.span_id)) continue;
    const g = s.genai;
    const usage: TokenUsage = g.usage ?? {};
    const model = cutOrNull(g.response_model ?? g.request_model, MAX_NAME_CHARS);
    const price = model === null ? null : prices.priceOf(model);
    // A cost the instrumentation reported (Langfuse's cost details) is what the user was billed.
    const stepNano = g.cost_usd !== undefined ? nanoUsd(g.cost_usd) : price ? nanoUsd(callCostUsd(price, usage)) : null;
    if (stepNano === null) unpriced++;
    else costNano += stepNano;
    const step: ModelStep = {
      type: 'llm',
      span_id: s.span_id,
      agent,
      start_ms: start,
      model,
      provider: cutOrNull(g.provider, MAX_NAME_CHARS),
      input_tokens: count(usage.input_tokens),
      output_tokens: count(usage.output_tokens),
      latency_ms: latency,
      status: failed ? 'error' : 'ok',
      cost_usd: stepNano === null ? null : stepNano / 1e9,
    };
    if (usage.cache_read_input_tokens !== undefined) step.cache_read_input_tokens = count(usage.cache_read_input_tokens);
    if (usage.cache_creation_input_tokens !== undefined) step.cache_creation_input_tokens = count(usage.cache_creation_input_tokens);
    if (usage.reasoning_tokens !== undefined) step.reasoning_tokens = count(usage.reasoning_tokens);
    if (g.usage_by_modality) step.usage_by_modality = g.usage_by_modality;
    const ttft = ttftMs(s, latency);
    if (ttft !== undefined) step.ttft_ms = ttft;
    if (failed) step.error = cut(s.status.message || 'model call ended with error status', MAX_ERROR_CHARS);
    raw.push(step);
    addToTotals(totals, step, stepNano);
  }
  const steps = withHandoffs(raw);
  const kept = steps.length > MAX_STEPS ? steps.slice(0, MAX_STEPS) : steps;
  // Model names are the trace's text: no prototype, so `__proto__` is just a name.
  const tokensByModel: Record<string, ModelTotals> = Object.create(null) as Record<string, ModelTotals>;
  for (const [name, { nano, ...t }] of totals) tokensByModel[name] = { ...t, cost_usd: nano === null ? null : nano / 1e9 };
  return {
    steps: kept,
    ...(steps.length > kept.length ? { steps_dropped: steps.length - kept.length } : {}),
    duration_ms: ms(Math.max(0, input.endMs - startMs)),
    llm_calls: raw.filter((s) => s.type === 'llm').length,
    tool_call_count: input.toolCalls.length,
    tool_errors: input.toolCalls.filter((c) => c.error !== null).length,
    tokens_by_model: tokensByModel,
    cost_usd: costNano / 1e9,
    unpriced_llm_calls: unpriced,
    price_table: prices.version,
  };
}

function addToTotals(totals: Map<string, ModelTotals & { nano: number | null }>, step: ModelStep, stepNano: number | null): void {
  let name = step.model ?? 'unknown';
  if (!totals.has(name) && totals.size >= MAX_MODELS - 1 && name !== 'other') name = 'other';
  const t = totals.get(name) ?? { input_tokens: 0, output_tokens: 0, calls: 0, cost_usd: null, nano: null };
  t.calls++;
  t.input_tokens! += step.input_tokens;
  t.output_tokens! += step.output_tokens;
  if (step.cache_read_input_tokens !== undefined) t.cache_read_input_tokens = (t.cache_read_input_tokens ?? 0) + step.cache_read_input_tokens;
  if (step.cache_creation_input_tokens !== undefined) t.cache_creation_input_tokens = (t.cache_creation_input_tokens ?? 0) + step.cache_creation_input_tokens;
  if (step.reasoning_tokens !== undefined) t.reasoning_tokens = (t.reasoning_tokens ?? 0) + step.reasoning_tokens;
  // A model's cost counts its priced calls (the unit's `unpriced_llm_calls` says when some were not).
  if (stepNano !== null) t.nano = (t.nano ?? 0) + stepNano;
  totals.set(name, t);
}

/** What an MCP request without a tool name is about: its method and resource (`resources/read weather://paris`). */
function mcpTarget(m: McpFields): string {
  return m.resource_uri ? `${m.method} ${m.resource_uri}` : m.method;
}

function cutMcp(m: McpFields): McpFields {
  const out: McpFields = { method: cut(m.method, MAX_NAME_CHARS), side: m.side };
  if (m.session_id !== undefined) out.session_id = cut(m.session_id, MAX_NAME_CHARS);
  if (m.resource_uri !== undefined) out.resource_uri = cut(m.resource_uri, MAX_ERROR_CHARS);
  if (m.protocol_version !== undefined) out.protocol_version = cut(m.protocol_version, MAX_NAME_CHARS);
  if (m.request_id !== undefined) out.request_id = cut(m.request_id, MAX_NAME_CHARS);
  return out;
}

/** A hand-off wherever control passes from one named agent to another, between two steps in start order. */
function withHandoffs(steps: readonly UnitStep[]): UnitStep[] {
  const out: UnitStep[] = [];
  let current: string | null = null;
  for (const s of steps) {
    if (s.agent !== null) {
      if (current !== null && s.agent !== current) out.push({ type: 'handoff', agent: s.agent, start_ms: s.start_ms, from: current });
      current = s.agent;
    }
    out.push(s);
  }
  return out;
}

