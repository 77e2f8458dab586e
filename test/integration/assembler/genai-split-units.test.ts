import { describe, expect, it } from 'vitest';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { contentByReferenceReason, diagnoseUnit } from '../../../shared/engines/diagnose/index.ts';
import { fixtureUnits, type FixtureEncoding } from '../../helpers/fixture-units.ts';

// The captures of the GenAI conventions before and after the split, and of MCP across a client and
// a server process (test/fixtures/otlp/genai-split/, test/fixtures/otlp/mcp/), through the
// collector's normalization and the assembler, in both encodings: the exact units. (The replay over
// HTTP JSON, HTTP protobuf and gRPC of the same files is in test/integration/collector/fixtures-replay.test.ts.)

const ENCODINGS: FixtureEncoding[] = ['json', 'protobuf'];
const SYSTEM = { role: 'system', content: 'You are a weather assistant. Use the get_weather tool.' };
const USER = { role: 'user', content: 'What is the weather in Paris?' };
const ANSWER = { role: 'assistant', content: 'It is sunny in Paris, 22 °C.' };
const USAGE = { input_tokens: 120, output_tokens: 18, cache_read_input_tokens: 40, cache_creation_input_tokens: 10 };

function only(family: string, scenario: string, encoding: FixtureEncoding): Unit {
  const units = fixtureUnits(family, scenario, encoding);
  expect(units).toHaveLength(1);
  return units[0];
}

/** The fields a check and the timeline read (ids and times of a capture differ per run; latencies are checked as numbers). */
function gist(u: Unit): Record<string, unknown> {
  return {
    agent_name: u.agent_name,
    conversation_id: u.conversation_id,
    model: u.model,
    message_history: u.message_history,
    model_output: u.model_output,
    tool_calls: u.tool_calls.map(({ id: _id, ...c }) => c),
    usage: u.usage,
    errors: u.errors.map((e) => e.message),
    attributes: u.attributes,
    content_refs: u.content_refs?.map(({ span_id: _s, ...r }) => r) ?? null,
    steps: u.steps!.map((step) => {
      const { span_id: _s, start_ms: _t, ...s } = step;
      if ('latency_ms' in s) {
        expect(s.latency_ms).toBeGreaterThanOrEqual(0);
        delete (s as { latency_ms?: number }).latency_ms;
      }
      return s;
    }),
    llm_calls: u.llm_calls,
    tool_call_count: u.tool_call_count,
    tool_errors: u.tool_errors,
  };
}

const LLM_STEP_V1 = {
  type: 'llm',
  agent: 'weather-agent',
  model: 'mock-accurate',
  provider: 'openai',
  input_tokens: 120,
  output_tokens: 18,
  cache_read_input_tokens: 40,
  cache_creation_input_tokens: 10,
  usage_by_modality: { input: { text: 100, image: 20 }, output: { text: 18 } },
  ttft_ms: 4,
  status: 'ok',
  cost_usd: null,
};
const MEMORY_STEPS = [
  { type: 'memory', agent: 'weather-agent', operation: 'upsert_memory', store_id: 'user-prefs', record_count: 1, status: 'ok' },
  // Both started in the same SDK millisecond; the shorter one ended first.
  { type: 'memory', agent: 'weather-agent', operation: 'delete_memory_store', store_id: 'scratch', record_count: null, status: 'ok' },
  { type: 'memory', agent: 'weather-agent', operation: 'create_memory_store', store_id: 'scratch', record_count: null, status: 'ok' },
];

describe.each(ENCODINGS)('the GenAI conventions after the split (%s)', (encoding) => {
  it('pre-split names (schema 1.41.0): the workflow from gen_ai.workflow.name, cache writes from cache_creation, TTFT from time_to_first_chunk', () => {
    expect(gist(only('genai-split', 'pre-split-1.41', encoding))).toEqual({
      agent_name: 'weather-agent',
      conversation_id: 'conv-pre-split-1.41',
      model: 'mock-accurate',
      message_history: [SYSTEM, USER, ANSWER],
      model_output: ANSWER.content,
      tool_calls: [],
      usage: USAGE,
      errors: [],
      attributes: { 'service.name': 'weather-agent', 'gen_ai.workflow.name': 'trip-planner' },
      content_refs: null,
      steps: [{ type: 'llm', agent: 'weather-agent', model: 'mock-accurate', provider: 'openai', input_tokens: 120, output_tokens: 18, cache_read_input_tokens: 40, cache_creation_input_tokens: 10, ttft_ms: 4, status: 'ok', cost_usd: null }],
      llm_calls: 1,
      tool_call_count: 0,
      tool_errors: 0,
    });
  });

  it('v0.1.0 names (schema gen-ai/0.1.0): the same call, plus per-modality usage, a plan step and memory steps; the workflow names no agent', () => {
    const u = only('genai-split', 'v0.1.0', encoding);
    expect(gist(u)).toEqual({
      agent_name: 'weather-agent',
      conversation_id: 'conv-v0.1.0',
      model: 'mock-accurate',
      message_history: [SYSTEM, USER, ANSWER],
      model_output: ANSWER.content,
      tool_calls: [],
      usage: USAGE,
      errors: [],
      attributes: { 'service.name': 'weather-agent' },
      content_refs: null,
      steps: [
        { type: 'plan', agent: 'weather-agent', name: 'plan weather-agent', status: 'ok' },
        { type: 'memory', agent: 'weather-agent', operation: 'search_memory', store_id: 'user-prefs', record_count: 2, status: 'ok' },
        LLM_STEP_V1,
        ...MEMORY_STEPS,
      ],
      llm_calls: 1,
      tool_call_count: 0,
      tool_errors: 0,
    });
    expect(diagnoseUnit(u)).toEqual([]);
  });

  it('content by reference: no dialog, the URIs on the unit, a diagnostic naming them, and the reason checks give for not running', () => {
    const u = only('genai-split', 'content-ref', encoding);
    const g = gist(u);
    expect([g.message_history, g.model_output, g.content_refs, g.usage, g.llm_calls]).toEqual([
      [],
      null,
      [{ input: 'file:///var/lib/genai-uploads/3f2a/input.json', output: 'file:///var/lib/genai-uploads/3f2a/output.json' }],
      USAGE,
      1,
    ]);
    expect(g.steps).toEqual([
      { type: 'plan', agent: 'weather-agent', name: 'plan weather-agent', status: 'ok' },
      { type: 'memory', agent: 'weather-agent', operation: 'search_memory', store_id: 'user-prefs', record_count: 2, status: 'ok' },
      LLM_STEP_V1,
      ...MEMORY_STEPS,
    ]);
    expect(diagnoseUnit(u).map((d) => [d.code, d.message])).toEqual([
      [
        'content_by_reference',
        '1 model call recorded the messages as references to uploaded content, so the checks that read the dialog cannot run: file:///var/lib/genai-uploads/3f2a/input.json, file:///var/lib/genai-uploads/3f2a/output.json.',
      ],
    ]);
    expect(contentByReferenceReason(u)).toBe(
      "the unit's messages were recorded by reference (1 model call, e.g. file:///var/lib/genai-uploads/3f2a/input.json), not as text: there is no dialog to check",
    );
  });
});

describe.each(ENCODINGS)('MCP across a client and a server process (%s)', (encoding) => {
  const SESSION = '0176c3d6-101e-4540-b7cc-9b23435a0e6b';
  const mcp = (method: string, requestId: string, extra: Record<string, string> = {}) => ({ method, side: 'client', session_id: SESSION, protocol_version: '2025-11-25', request_id: requestId, ...extra });

  it('one unit: each request one tool step (the server span folded into the client span), with session, method, resource and protocol version', () => {
    const u = only('mcp', 'weather-tools', encoding);
    expect(u.span_count).toBe(7);
    expect(gist(u)).toEqual({
      agent_name: 'weather-agent',
      conversation_id: null,
      model: null,
      message_history: [],
      model_output: null,
      tool_calls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}', result: '{"city":"Paris","forecast":"sunny","temperature_c":22}', error: null },
        { name: 'get_weather', arguments: '{"city":"Atlantis"}', result: null, error: 'unknown city: Atlantis' },
      ],
      usage: { input_tokens: 0, output_tokens: 0 },
      errors: ['unknown city: Atlantis'],
      attributes: { 'service.name': 'weather-agent' },
      content_refs: null,
      steps: [
        { type: 'tool', agent: 'weather-agent', name: 'get_weather', call_id: null, status: 'ok', mcp: mcp('tools/call', '1') },
        { type: 'tool', agent: 'weather-agent', name: 'get_weather', call_id: null, status: 'error', error: 'unknown city: Atlantis', mcp: mcp('tools/call', '2') },
        { type: 'tool', agent: 'weather-agent', name: 'resources/read weather://paris/today', call_id: null, status: 'ok', mcp: mcp('resources/read', '3', { resource_uri: 'weather://paris/today' }) },
      ],
      llm_calls: 0,
      tool_call_count: 2,
      tool_errors: 1,
    });
    expect(u.received?.scopes.map((s) => [s.name, s.spans])).toEqual([
      ['weather-agent-mcp-client', 4],
      ['weather-mcp-server', 3],
    ]);
  });
});
