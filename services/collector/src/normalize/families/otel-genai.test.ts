import { describe, expect, it } from 'vitest';
import { SpanEnvelopeSchema } from '../../../../../shared/contracts/schemas/index.ts';
import { decodeTraceRequestJson } from '../../otlp/decode-json.ts';
import { jsonTraceRequest, type SpanSpec } from '../../testing/otlp-builders.ts';
import { normalizeSpan } from '../normalize-span.ts';
import { normalizeOne } from '../test-support.ts';

const OPTS = { maxAttributeBytes: 1024 * 1024, receivedAtMs: 1 };

function normalize(spec: SpanSpec, resource?: Record<string, unknown>) {
  const req = decodeTraceRequestJson(JSON.stringify(jsonTraceRequest([spec], resource)));
  const rs = req.resourceSpans[0];
  const env = normalizeSpan(rs.scopeSpans[0].spans[0], rs.resource, rs.scopeSpans[0].scope, OPTS);
  expect(SpanEnvelopeSchema.safeParse(env).success).toBe(true);
  return env;
}

const chatAttributes = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o',
  'gen_ai.response.model': 'gpt-4o-2024-08-06',
  'gen_ai.conversation.id': 'conv_42',
  'gen_ai.agent.name': 'Weather',
  'gen_ai.system_instructions': '[{"type":"text","content":"You are a weather bot"}]',
  'gen_ai.input.messages':
    '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},' +
    '{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]},' +
    '{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"rainy, 14C"}]}]',
  'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Rainy, 14C."}],"finish_reason":"stop"}]',
  'gen_ai.tool.definitions': '[{"type":"function","name":"get_weather","parameters":{"type":"object"}}]',
  'gen_ai.usage.input_tokens': 52,
  'gen_ai.usage.output_tokens': 9,
  'gen_ai.response.finish_reasons': ['stop'],
  'server.address': 'api.openai.com',
};

const expectedChatGenAi = {
  family: 'otel_genai',
  operation: 'chat',
  input_messages: [
    { role: 'system', content: 'You are a weather bot' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', content: 'rainy, 14C', tool_call_id: 'call_1' },
  ],
  output_messages: [{ role: 'assistant', content: 'Rainy, 14C.' }],
  tool_definitions: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
  request_model: 'gpt-4o',
  response_model: 'gpt-4o-2024-08-06',
  provider: 'openai',
  usage: { input_tokens: 52, output_tokens: 9, total_tokens: 61 },
  agent_name: 'Weather',
  agent_version: '2.1.0',
  conversation_id: 'conv_42',
};

describe('OTel GenAI current attributes', () => {
  it('normalizes the conventions example (JSON strings) into an exact envelope', () => {
    const env = normalize(
      { attributes: chatAttributes },
      { 'service.name': 'weather-svc', 'service.version': '2.1.0', 'deployment.environment.name': 'prod' },
    );
    expect(env).toEqual({
      schema_version: 1,
      kind: 'span',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      name: 'chat gpt-4o',
      span_kind: 3,
      start_time_unix_nano: '1700000000000000000',
      end_time_unix_nano: '1700000001000000000',
      status: { code: 0 },
      service_name: 'weather-svc',
      service_version: '2.1.0',
      environment: 'prod',
      scope: { name: 'test-scope', version: '1.0.0' },
      attributes: { 'gen_ai.response.finish_reasons': ['stop'], 'server.address': 'api.openai.com' },
      resource_attributes: { 'service.name': 'weather-svc', 'service.version': '2.1.0', 'deployment.environment.name': 'prod' },
      events: [],
      dropped_attributes_count: 0,
      genai: expectedChatGenAi,
      received_at_ms: 1,
    });
  });

  it('reads the same content from structured AnyValues', () => {
    const structured = {
      ...chatAttributes,
      'gen_ai.system_instructions': JSON.parse(chatAttributes['gen_ai.system_instructions']),
      'gen_ai.input.messages': JSON.parse(chatAttributes['gen_ai.input.messages']),
      'gen_ai.output.messages': JSON.parse(chatAttributes['gen_ai.output.messages']),
      'gen_ai.tool.definitions': JSON.parse(chatAttributes['gen_ai.tool.definitions']),
    };
    const env = normalize({ attributes: structured }, { 'service.version': '2.1.0' });
    expect(env.genai).toEqual(expectedChatGenAi);
  });

  it('turns an execute_tool span into tool_execution', () => {
    const env = normalize({
      name: 'execute_tool get_weather',
      kind: 1,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': '{"city": "Paris"}',
        'gen_ai.tool.call.result': '"rainy, 14C"',
      },
    }, {});
    expect(env.genai).toEqual({
      family: 'otel_genai',
      operation: 'execute_tool',
      tool_execution: { name: 'get_weather', call_id: 'call_1', arguments: '{"city":"Paris"}', result: 'rainy, 14C' },
    });
    expect(env.attributes).toEqual({});
  });

  it('records a failed tool with its error', () => {
    const env = normalize({
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'c9', 'error.type': 'TimeoutError' },
      status: { code: 2, message: 'weather API timed out' },
    }, {});
    expect(env.genai.tool_execution).toEqual({ name: 'get_weather', call_id: 'c9', error: 'weather API timed out' });
    expect(env.status).toEqual({ code: 2, message: 'weather API timed out' });
    expect(env.attributes).toEqual({ 'error.type': 'TimeoutError' });
  });

  it('accepts the `result` key and double-encoded arguments in parts', () => {
    const env = normalize({
      attributes: {
        'gen_ai.input.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: JSON.stringify(JSON.stringify({ a: 1 })) }] },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', result: { ok: true } }] },
        ]),
      },
    }, {});
    expect(env.genai.input_messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      { role: 'tool', content: '{"ok":true}', tool_call_id: 'c1' },
    ]);
  });
});

describe('OTel GenAI content on the operation-details event', () => {
  it('reads messages from gen_ai.client.inference.operation.details and drops the event', () => {
    const env = normalize(
      {
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' },
        events: [
          {
            name: 'gen_ai.client.inference.operation.details',
            attributes: {
              'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
              'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'stop' }],
            },
          },
        ],
      },
      {},
    );
    expect(env.genai).toEqual({
      family: 'otel_genai',
      operation: 'chat',
      input_messages: [{ role: 'user', content: 'Hi' }],
      output_messages: [{ role: 'assistant', content: 'Hello' }],
      request_model: 'gpt-4o',
    });
    expect(env.events).toEqual([]);
  });
});

describe('OpenLIT on OTel GenAI attributes', () => {
  const text = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });

  it('keeps a system prompt that is both in gen_ai.system_instructions and in the input messages once', () => {
    const env = normalize({
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
        'gen_ai.input.messages': JSON.stringify([text('system', 'Be brief.'), text('user', 'Hi')]),
      },
    }, {});
    expect(env.genai.input_messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
  });

  it('reads gen_ai.tool.* on a model span as the calls it asked for: their call ids replace the Responses item ids', () => {
    const call = (id: string, city: string) => ({ type: 'tool_call', id, name: 'get_weather', arguments: { city } });
    const env = normalize({
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([text('user', 'Paris and Rome?')]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [call('fc_1', 'Paris'), call('fc_2', 'Rome')] }]),
        'gen_ai.tool.name': 'get_weather, get_weather',
        'gen_ai.tool.call.id': 'call_1, call_2',
        'gen_ai.tool.args': '{"city": "Paris"}, {"city": "Rome"}',
      },
    }, {});
    expect(env.genai.tool_execution).toBeUndefined();
    expect(env.genai.output_messages?.[0].tool_calls?.map((c) => c.id)).toEqual(['call_1', 'call_2']);
    expect(env.attributes).toEqual({});
  });

  it('leaves the item ids when the listed calls do not match the output call by call', () => {
    const env = normalize({
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'fc_1', name: 'get_weather', arguments: {} }] }]),
        'gen_ai.tool.name': 'get_time',
        'gen_ai.tool.call.id': 'call_1',
      },
    }, {});
    expect(env.genai.output_messages?.[0].tool_calls?.map((c) => c.id)).toEqual(['fc_1']);
  });
});

describe('opentelemetry-instrumentation-openai-agents-v2: SDK objects written as Python reprs', () => {
  const scope = { name: 'opentelemetry.instrumentation.openai_agents' };
  const call = "ResponseFunctionToolCall(arguments='{\"city\": \"Paris\"}', call_id='call_1', name='get_weather', type='function_call', id='fc_1', async_=None, status='completed')";

  it('reads a function call repr as the tool call and an output_text dict repr as its text', () => {
    const env = normalizeOne(
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'Paris?' }] },
            { role: 'assistant', parts: [{ type: 'text', content: "{'annotations': [], 'text': 'It\\'s sunny, 22 \\u00b0C.', 'type': 'output_text', 'logprobs': []}" }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: call }] }]),
        },
      },
      { scope },
    );
    expect(env.genai.input_messages).toEqual([{ role: 'user', content: 'Paris?' }, { role: 'assistant', content: "It's sunny, 22 °C." }]);
    expect(env.genai.output_messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    ]);
  });

  it('keeps text that only looks like a repr, and reprs from any other scope', () => {
    const odd = "{'text': 'hi'} and more";
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: odd }] }, { role: 'assistant', parts: [{ type: 'text', content: call }] }]),
    };
    expect(normalizeOne({ attributes }, { scope }).genai.output_messages?.map((m) => m.content)).toEqual([odd, null]);
    expect(normalizeOne({ attributes }, { scope: { name: 'other' } }).genai.output_messages?.map((m) => m.content)).toEqual([odd, call]);
  });
});

describe('Google ADK streaming', () => {
  it('leaves out the partial responses (finish_reason "") when the whole one is there', () => {
    const part = (content: string, finish: string) => ({ role: 'assistant', parts: [{ type: 'text', content }], finish_reason: finish });
    const env = normalize({
      attributes: { 'gen_ai.operation.name': 'generate_content', 'gen_ai.output.messages': JSON.stringify([part('Sun', ''), part('ny.', ''), part('Sunny.', 'stop')]) },
    }, {});
    expect(env.genai.output_messages).toEqual([{ role: 'assistant', content: 'Sunny.' }]);
    const unfinished = normalize({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': JSON.stringify([part('Sun', '')]) } }, {});
    expect(unfinished.genai.output_messages).toEqual([{ role: 'assistant', content: 'Sun' }]);
  });
});
