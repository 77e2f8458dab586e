import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { diagnoseUnit } from '../../../shared/engines/diagnose/index.ts';
import { fixtureUnits, type FixtureEncoding } from '../../helpers/fixture-units.ts';
import { FIXTURES_DIR } from '../collector/fixture-expectations.ts';

// The same weather agent traced with both Langfuse SDKs (test/fixtures/otlp/langfuse-js/, JS
// @langfuse/tracing + @langfuse/otel 5.11.1; test/fixtures/otlp/python/langfuse/, Python langfuse
// 5.0.4), through the collector's normalization and the assembler, in both encodings: the exact
// units. (The replay over HTTP JSON, HTTP protobuf and gRPC is fixtures-replay.test.ts; the door's
// path and key pair, langfuse-door.test.ts.)

const SDKS = [
  { family: 'langfuse-js', conversation: 'conv-langfuse-js', service: 'unknown_service:node', resource: { 'service.name': 'unknown_service:node', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.name': 'opentelemetry', 'telemetry.sdk.version': '2.12.1' } },
  { family: 'python/langfuse', conversation: 'conv-langfuse-py', service: 'unknown_service:python', resource: { 'service.name': 'unknown_service:python', 'telemetry.sdk.language': 'python', 'telemetry.sdk.name': 'opentelemetry', 'telemetry.sdk.version': '1.45.2', 'service.instance.id': '952b57f6-1475-45a5-8651-fbf2b828e085', 'langfuse.environment': 'staging', 'langfuse.release': 'rel-2026.11' } },
];
const ENCODINGS: FixtureEncoding[] = ['json', 'protobuf'];

const SYSTEM = { role: 'system', content: 'You are a weather assistant. Use the get_weather tool.' };
const USER = { role: 'user', content: 'What is the weather in Paris?' };
const call = (id: string, city: string) => ({ id, type: 'function', function: { name: 'get_weather', arguments: `{"city":"${city}"}` } });
const CALLS = { role: 'assistant', content: null, tool_calls: [call('call_paris', 'Paris'), call('call_atlantis', 'Atlantis')] };
const PARIS = '{"city":"Paris","forecast":"sunny","temperature_c":22}';
const ATLANTIS = '{"error":"unknown city: Atlantis"}';
const ANSWER = 'It is sunny in Paris, 22 °C. I could not find Atlantis.';
const HISTORY = [SYSTEM, USER, CALLS, { role: 'tool', content: PARIS, tool_call_id: 'call_paris' }, { role: 'tool', content: ATLANTIS, tool_call_id: 'call_atlantis' }];

function only(family: string, encoding: FixtureEncoding): Unit {
  const units = fixtureUnits(family, 'weather-agent', encoding);
  expect(units).toHaveLength(1);
  return units[0];
}

/** Ids and times differ per capture; latencies are checked as numbers. */
function steps(u: Unit): unknown[] {
  return u.steps!.map((step) => {
    const { span_id: _s, start_ms: _t, ...s } = step;
    if ('latency_ms' in s) {
      expect(s.latency_ms).toBeGreaterThanOrEqual(0);
      delete (s as { latency_ms?: number }).latency_ms;
    }
    return s;
  });
}

describe.each(SDKS)('the Langfuse SDK ($family)', (sdk) => {
  it.each(ENCODINGS)('%s: observations become the dialog, steps, usage and cost, with the trace attributes', (encoding) => {
    const u = only(sdk.family, encoding);
    expect({
      agent_name: u.agent_name,
      agent_version: u.agent_version,
      service: u.service,
      environment: u.environment,
      conversation_id: u.conversation_id,
      model: u.model,
      model_input: u.model_input,
      model_output: u.model_output,
      message_history: u.message_history,
      tool_calls: u.tool_calls,
      usage: u.usage,
      errors: u.errors.map((e) => e.message),
      span_count: u.span_count,
      llm_calls: u.llm_calls,
      tool_call_count: u.tool_call_count,
      tool_errors: u.tool_errors,
      tokens_by_model: u.tokens_by_model,
      cost_usd: u.cost_usd,
      unpriced_llm_calls: u.unpriced_llm_calls,
    }).toEqual({
      agent_name: 'weather-agent',
      // langfuse.version wins over langfuse.release (both stay attributes).
      agent_version: '1.4.0',
      service: sdk.service,
      environment: 'staging',
      conversation_id: sdk.conversation,
      model: 'mock-accurate',
      model_input: HISTORY,
      model_output: ANSWER,
      message_history: [...HISTORY, { role: 'assistant', content: ANSWER }],
      tool_calls: [
        { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}', result: PARIS, error: null },
        { id: 'call_atlantis', name: 'get_weather', arguments: '{"city":"Atlantis"}', result: ATLANTIS, error: 'unknown city: Atlantis' },
      ],
      usage: { input_tokens: 318, output_tokens: 34, cache_read_input_tokens: 64 },
      // Level ERROR with its status message (the JS SDK leaves the span's status unset).
      errors: ['unknown city: Atlantis'],
      span_count: 11,
      llm_calls: 3,
      tool_call_count: 2,
      tool_errors: 1,
      // The generations' cost as the SDK reported it; the embedding's (no cost details) from the price table.
      tokens_by_model: {
        'text-embedding-3-small': { input_tokens: 8, output_tokens: 0, calls: 1, cost_usd: 1.6e-7 },
        'mock-accurate': { input_tokens: 310, output_tokens: 34, calls: 2, cost_usd: 0.000357, cache_read_input_tokens: 64 },
      },
      cost_usd: 0.00035716,
      unpriced_llm_calls: 0,
    });
    expect(steps(u)).toEqual([
      { type: 'llm', agent: 'weather-agent', model: 'text-embedding-3-small', provider: null, input_tokens: 8, output_tokens: 0, status: 'ok', cost_usd: 1.6e-7 },
      { type: 'llm', agent: 'weather-agent', model: 'mock-accurate', provider: null, input_tokens: 120, output_tokens: 18, status: 'ok', cost_usd: 0.000156 },
      { type: 'tool', agent: 'weather-agent', name: 'get_weather', call_id: null, status: 'ok' },
      { type: 'tool', agent: 'weather-agent', name: 'get_weather', call_id: null, status: 'error', error: 'unknown city: Atlantis' },
      { type: 'llm', agent: 'weather-agent', model: 'mock-accurate', provider: null, input_tokens: 190, output_tokens: 16, cache_read_input_tokens: 64, status: 'ok', cost_usd: 0.000201 },
    ]);
    // User, tags (joined), metadata (the Python SDK's JSON-quoted strings unquoted), release, version
    // and the trace name are the root's attributes, for monitor filters and the explorer.
    expect(u.attributes).toEqual({
      ...sdk.resource,
      'user.id': 'user-42',
      'langfuse.release': 'rel-2026.11',
      'langfuse.version': '1.4.0',
      'langfuse.trace.name': 'weather-agent',
      'langfuse.trace.tags': 'weather,beta',
      'langfuse.trace.metadata.plan': 'pro',
      'langfuse.observation.input': 'What is the weather in Paris?',
      'langfuse.observation.output': ANSWER,
    });
    expect(u.received?.scopes.map((s) => [s.name, s.family, s.spans, s.model_calls, s.tool_executions])).toEqual([['langfuse-sdk', 'langfuse', 11, 3, 2]]);
    expect(diagnoseUnit(u)).toEqual([]);
  });

  it('each observation type becomes an operation; level ERROR with its status message is the span error, WARNING is not', () => {
    const { records } = JSON.parse(readFileSync(join(FIXTURES_DIR, sdk.family, 'weather-agent.expected.json'), 'utf8')) as { records: Array<{ name: string; status: unknown; genai: { operation?: string; family?: string } }> };
    expect(records.map((r) => [r.name, r.genai.operation ?? null, r.genai.family ?? null]).sort()).toEqual(
      [
        ['answer-delivered', 'event', 'langfuse'],
        ['chat mock-accurate', 'chat', 'langfuse'],
        ['chat mock-accurate', 'chat', 'langfuse'],
        ['city-lookup', 'retrieval', 'langfuse'],
        ['embed-question', 'embeddings', 'langfuse'],
        ['format-answer', 'chain', 'langfuse'],
        ['get_weather', 'execute_tool', 'langfuse'],
        ['get_weather', 'execute_tool', 'langfuse'],
        ['input-guardrail', 'guardrail', 'langfuse'],
        ['self-check', 'evaluator', 'langfuse'],
        ['weather-agent', 'invoke_agent', 'langfuse'],
      ].sort(),
    );
    expect(records.filter((r) => r.name === 'get_weather').map((r) => r.status)).toEqual([{ code: 0 }, { code: 2, message: 'unknown city: Atlantis' }]);
    // A warning is not a failure: the evaluator's span ends ok.
    expect(records.find((r) => r.name === 'self-check')!.status).toEqual({ code: 0 });
  });
});
