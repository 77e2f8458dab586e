import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleTrace } from '../../../services/assembler/src/assemble-trace.ts';
import { decodeTraceRequestJson, traceRequestToMessages } from '../../../services/collector/src/index.ts';
import { SpanEnvelopeSchema, type SpanRecord, type Unit, type UnitStep } from '../../../shared/contracts/schemas/index.ts';
import { createPriceTable } from '../../../shared/engines/pricing/index.ts';
import { FIXTURES_DIR } from '../collector/fixture-expectations.ts';

// Steps, tokens per model and cost of real captures (test/fixtures/otlp), through the collector's
// normalization and the assembler, against figures worked out by hand from the captures: token
// counts as the spans report them, latencies as end - start of each span, cost from the test's
// prices. Every capture calls the mock server's `mock-accurate` model, priced here at $2 / $8 per 1M
// input / output tokens. No capture carries cached or reasoning tokens above zero: those prices are
// tested in shared/engines/pricing and services/assembler/src/unit-steps.test.ts.
const prices = createPriceTable({ version: 'test-prices-1', models: { 'mock-accurate': { input: 2, output: 8, cache_read: 0.5 } } });
const usd = (input: number, output: number): number => (input * 2 + output * 8) / 1e6;

/** The units of a capture, in the order of their traces' first spans. */
function unitsOf(path: string): Unit[] {
  const conversion = traceRequestToMessages(decodeTraceRequestJson(readFileSync(join(FIXTURES_DIR, path))), { maxAttributeBytes: 1 << 20, receivedAtMs: 0 });
  const byTrace = new Map<string, SpanRecord[]>();
  for (const m of conversion.messages) {
    const e = SpanEnvelopeSchema.parse(JSON.parse(m.value));
    if (e.kind !== 'span') continue;
    byTrace.set(e.trace_id, [...(byTrace.get(e.trace_id) ?? []), e]);
  }
  return [...byTrace].map(([traceId, spans]) => assembleTrace({ traceId, spans, logs: [] }, 0, { prices }));
}

/** A step in short: what the timeline shows of it. */
function brief(s: UnitStep): unknown[] {
  if (s.type === 'llm') return ['llm', s.agent, s.model, s.input_tokens, s.output_tokens, s.latency_ms, s.ttft_ms ?? null, s.status, s.cost_usd];
  if (s.type === 'tool') return ['tool', s.agent, s.name, s.call_id, s.latency_ms, s.status, s.error ?? null];
  if (s.type === 'handoff') return ['handoff', s.from, s.agent];
  return [s.type, s.agent, s.latency_ms, s.status];
}

describe('steps of real captures', () => {
  it('OpenInference (JS): two model calls, their tokens, latencies and cost', () => {
    const [u] = unitsOf('openinference/weather-tool.otlp.json');
    expect(u.steps!.map(brief)).toEqual([
      ['llm', null, 'mock-accurate', 88, 10, 170.906, null, 'ok', usd(88, 10)],
      ['llm', null, 'mock-accurate', 120, 18, 63.954, null, 'ok', usd(120, 18)],
    ]);
    expect(u.tokens_by_model).toEqual({ 'mock-accurate': { input_tokens: 208, output_tokens: 28, calls: 2, cost_usd: usd(208, 28) } });
    expect([u.cost_usd, u.llm_calls, u.tool_call_count, u.tool_errors, u.unpriced_llm_calls, u.price_table]).toEqual([0.00064, 2, 1, 0, 0, 'test-prices-1']);
  });

  it('OpenLLMetry (JS) and OTel GenAI (JS): the same two calls, timed by each library', () => {
    const [llmetry] = unitsOf('openllmetry/weather-tool.otlp.json');
    expect(llmetry.steps!.map(brief)).toEqual([
      ['llm', null, 'mock-accurate', 88, 10, 216.834, null, 'ok', 0.000256],
      ['llm', null, 'mock-accurate', 120, 18, 10.4, null, 'ok', 0.000384],
    ]);
    const [otel] = unitsOf('otel-genai-openai/weather-tool.otlp.json');
    expect(otel.steps!.map(brief)).toEqual([
      ['llm', null, 'mock-accurate', 88, 10, 274.634, null, 'ok', 0.000256],
      ['llm', null, 'mock-accurate', 120, 18, 85.317, null, 'ok', 0.000384],
    ]);
    expect([llmetry.cost_usd, otel.cost_usd, llmetry.duration_ms, otel.duration_ms]).toEqual([0.00064, 0.00064, 246, 370]);
  });

  it('Responses API, streamed (OpenLIT): time to first token of each call from gen_ai.server.time_to_first_token', () => {
    const [u] = unitsOf('python/openlit/responses-stream.otlp.json');
    expect(u.steps!.map(brief)).toEqual([
      ['llm', null, 'mock-accurate', 93, 12, 133.094, 32.163, 'ok', usd(93, 12)],
      ['llm', null, 'mock-accurate', 90, 12, 14.106, 0.854, 'ok', usd(90, 12)],
    ]);
    expect(u.cost_usd).toBe(0.000558);
    const [traceloop] = unitsOf('python/traceloop-openai/responses-stream.otlp.json');
    expect(traceloop.tokens_by_model).toEqual({ 'mock-accurate': { input_tokens: 183, output_tokens: 24, cache_read_input_tokens: 0, calls: 2, cost_usd: 0.000558 } });
  });

  it('AI SDK v7 stream: model calls with time to first chunk, and the tool execution between them', () => {
    const [u] = unitsOf('vercel-ai-sdk-otel/weather-tool-stream.otlp.json');
    expect(u.steps!.map(brief)).toEqual([
      ['llm', 'weather-agent', 'mock-accurate', 88, 10, 174.312, 120.282, 'ok', 0.000256],
      ['tool', 'weather-agent', 'get_weather', 'call_27aba71f8bfce8a53049a123', 0.474, 'ok', null],
      ['llm', 'weather-agent', 'mock-accurate', 120, 18, 141.213, 70.156, 'ok', 0.000384],
    ]);
  });

  it('OpenAI Agents SDK hand-off: the steps of each agent, and the hand-off between them', () => {
    const [u] = unitsOf('python/openai-agents-otel-v2/handoff.otlp.json');
    expect(u.steps!.map(brief)).toEqual([
      ['llm', 'triage-agent', 'mock-accurate', 93, 12, 43.135, null, 'ok', usd(93, 12)],
      ['handoff', 'triage-agent', 'weather-agent'],
      ['llm', 'weather-agent', 'mock-accurate', 63, 12, 26.661, null, 'ok', usd(63, 12)],
      ['tool', 'weather-agent', 'get_weather', null, 8.271, 'ok', null],
      ['llm', 'weather-agent', 'mock-accurate', 55, 12, 33.727, null, 'ok', usd(55, 12)],
    ]);
    expect(u.cost_usd).toBe(0.00071);
  });

  it('CrewAI failing tool: the tool step carries its error, and the unit counts it', () => {
    const [u] = unitsOf('python/crewai/failing-tool.otlp.json');
    expect(u.steps!.filter((s) => s.type === 'tool').map(brief)).toEqual([['tool', null, 'get_weather', null, 1.584, 'error', 'unknown city: Atlantis']]);
    expect([u.tool_call_count, u.tool_errors, u.cost_usd]).toEqual([1, 1, usd(131, 24)]);
  });

  it('Strands writes time to first token in whole ms: read as ms where seconds cannot be', () => {
    const [u] = unitsOf('python/strands/two-turns.otlp.json');
    expect(u.steps!.filter((s) => s.type === 'llm').map((s) => [s.latency_ms, s.type === 'llm' ? s.ttft_ms : null])).toEqual([
      [714.284, 713],
      [24.875, 23],
    ]);
  });
});
