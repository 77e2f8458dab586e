import { describe, expect, it } from 'vitest';
import { fixtureUnits as unitsOf } from '../helpers/fixture-units.ts';
import { listJsFixtures } from '../integration/collector/fixture-expectations.ts';

// Every golden export of a real instrumentation library, through the collector's normalization and
// the assembler, must give the same dialog: the conversation the fixture generator had with our
// model server. This is the trace-level check (history repeated across LLM spans deduplicated,
// wrapper spans not counted twice, tool results linked to their calls).

const SYSTEM = 'You are a weather assistant. Use the get_weather tool.';
const QUESTION = 'What is the weather in Paris?';
const RESULT = '{"city":"Paris","forecast":"sunny","temperature_c":22}';
const ANSWER = 'Here is what I found: city: Paris, forecast: sunny, temperature_c: 22.';
// Traceloop 0.22 records no call ids; the assembler numbers the calls by position.
const CALL_ID: Record<string, string> = { 'openllmetry-legacy': 'call_2_0' };
// @opentelemetry/instrumentation-openai records no tool definitions at all.
const WITHOUT_TOOL_DEFINITIONS = new Set(['otel-genai-openai']);

function dialog(callId: string) {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: QUESTION },
    { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', content: RESULT, tool_call_id: callId },
    { role: 'assistant', content: ANSWER },
  ];
}

// The weather conversation; the Responses API capture has its own dialog (below). MCP's capture is
// tool calls across a protocol boundary, with no model call: its exact units are in genai-split-units.
const cases = [...new Set(listJsFixtures().filter((f) => f.family !== 'mcp' && f.scenario.startsWith('weather-tool')).map((f) => `${f.family}/${f.scenario.replace(/\.logs$/, '')}`))].map((k) => k.split('/') as [string, string]);

describe('golden fixtures become the same unit', () => {
  it('covers every family', () => {
    expect(new Set(cases.map(([family]) => family)).size).toBe(7);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it.each(cases)(`%s/%s (${encoding}): the exact dialog, tool call and result`, (family, scenario) => {
      const units = unitsOf(family, scenario, encoding);
      expect(units).toHaveLength(1);
      const unit = units[0];
      const callId = CALL_ID[family] ?? 'call_27aba71f8bfce8a53049a123';
      expect(unit.message_history).toEqual(dialog(callId));
      expect(unit.model_output).toBe(ANSWER);
      expect(unit.tool_calls).toEqual([{ id: callId, name: 'get_weather', arguments: '{"city":"Paris"}', result: RESULT, error: null }]);
      expect(unit.tools.map((t) => t.function.name)).toEqual(WITHOUT_TOOL_DEFINITIONS.has(family) ? [] : ['get_weather']);
      expect(unit.model).toBe('mock-accurate');
      expect(unit.errors).toEqual([]);
      expect(unit.truncated).toBe(false);
    });
  }

  it('counts tokens once where the library reports them (non-streaming runs)', () => {
    const usage = Object.fromEntries(cases.filter(([, s]) => s === 'weather-tool').map(([family, s]) => [family, unitsOf(family, s, 'json')[0].usage.input_tokens]));
    expect(usage).toEqual({
      'langchain-openinference': 236,
      openinference: 208,
      openllmetry: 208,
      'openllmetry-legacy': 208,
      'otel-genai-openai': 208,
      'vercel-ai-sdk': 208,
      'vercel-ai-sdk-otel': 208,
    });
  });
});

// @opentelemetry/instrumentation-openai 0.21.0 with openai 6 on the Responses API: the span carries
// only gen_ai.system_instructions; the dialog is on two operation-details log records per call
// (input, then output), as structured AnyValues. The user's messages must all be in the unit.
describe('the Responses API capture of @opentelemetry/instrumentation-openai', () => {
  const FIRST = 'Hello, I am Ada. Please remember my name.';
  for (const encoding of ['json', 'protobuf'] as const) {
    it(`(${encoding}) keeps every message, the user's first one included`, () => {
      const units = unitsOf('otel-genai-openai-responses', 'responses', encoding);
      expect(units).toHaveLength(1);
      expect(units[0].message_history).toEqual([
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: FIRST },
        { role: 'assistant', content: `You said: ${FIRST}` },
        { role: 'user', content: 'What is 2 + 3?' },
        { role: 'assistant', content: '5' },
      ]);
      expect(units[0].model_output).toBe('5');
      expect(units[0].model).toBe('mock-accurate');
      expect(units[0].errors).toEqual([]);
    });
  }
});
