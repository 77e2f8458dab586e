import { describe, expect, it } from 'vitest';
import {
  decodeLogsRequestProtobuf,
  decodeTraceRequestProtobuf,
  logsRequestToMessages,
  traceRequestToMessages,
} from '../../services/collector/src/index.ts';
import { encodeLogsRequest, encodeTraceRequest, jsonLogsRequest, jsonTraceRequest } from '../../services/collector/src/testing/otlp-builders.ts';
import { assembleTrace } from '../../services/assembler/src/assemble-trace.ts';
import { SpanEnvelopeSchema, type LogRecordEnvelope, type SpanRecord } from '../../shared/contracts/schemas/index.ts';

// Current OTel GenAI semconv with content captured as events: the spans carry no content, and each
// model call's messages arrive as one `gen_ai.client.inference.operation.details` log record on
// /v1/logs, with structured (not JSON-string) attributes, as the spec requires for events.

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const ROOT = '00f067aa0ba902b7';
const CHAT1 = '00f067aa0ba902b8';
const CHAT2 = '00f067aa0ba902b9';

const call = { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } };
const details = (spanId: string, input: unknown[], output: unknown[], time: string) => ({
  traceId: TRACE,
  spanId,
  eventName: 'gen_ai.client.inference.operation.details',
  timeUnixNano: time,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.system_instructions': [{ type: 'text', content: 'You are a weather bot' }],
    'gen_ai.input.messages': input,
    'gen_ai.output.messages': output,
    'gen_ai.tool.definitions': [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
  },
});

describe('content on operation-details log records', () => {
  it('assembles the dialog from the log records of each model call', () => {
    const traces = encodeTraceRequest(jsonTraceRequest([
      { traceId: TRACE, spanId: ROOT, name: 'invoke_agent Weather', kind: 1, start: '1700000000000000000', end: '1700000005000000000', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Weather' } },
      { traceId: TRACE, spanId: CHAT1, parentSpanId: ROOT, start: '1700000001000000000', end: '1700000002000000000', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.output_tokens': 9 } },
      { traceId: TRACE, spanId: CHAT2, parentSpanId: ROOT, start: '1700000003000000000', end: '1700000004000000000', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 70, 'gen_ai.usage.output_tokens': 5 } },
    ]));
    const user = { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] };
    const logs = encodeLogsRequest(jsonLogsRequest([
      details(CHAT1, [user], [{ role: 'assistant', parts: [call], finish_reason: 'tool_call' }], '1700000002000000000'),
      details(CHAT2, [user, { role: 'assistant', parts: [call] }, { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'rainy, 14C' }] }], [{ role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 14C.' }], finish_reason: 'stop' }], '1700000004000000000'),
    ]));
    const options = { maxAttributeBytes: 1 << 20, receivedAtMs: 0 };
    const envelopes = [
      ...traceRequestToMessages(decodeTraceRequestProtobuf(traces), options).messages,
      ...logsRequestToMessages(decodeLogsRequestProtobuf(logs), options).messages,
    ].map((m) => SpanEnvelopeSchema.parse(JSON.parse(m.value)));
    const unit = assembleTrace({
      traceId: TRACE,
      spans: envelopes.filter((e): e is SpanRecord => e.kind === 'span'),
      logs: envelopes.filter((e): e is LogRecordEnvelope => e.kind === 'log'),
    }, 0);
    expect(unit.message_history).toEqual([
      { role: 'system', content: 'You are a weather bot' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', content: 'rainy, 14C', tool_call_id: 'call_1' },
      { role: 'assistant', content: 'Rainy, 14C.' },
    ]);
    expect(unit.tool_calls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', result: 'rainy, 14C', error: null }]);
    expect(unit.tools.map((t) => t.function.name)).toEqual(['get_weather']);
    expect([unit.model, unit.model_output, unit.agent_name]).toEqual(['gpt-4o', 'Rainy, 14C.', 'Weather']);
    expect(unit.usage).toEqual({ input_tokens: 120, output_tokens: 14 });
  });
});
