import { describe, expect, it } from 'vitest';
import { normalizeOne } from '../test-support.ts';

const AI = { name: 'ai', version: '5.0.0' };

describe('Vercel AI SDK', () => {
  it('normalizes the doGenerate example (v5+ shapes), with gen_ai.* beside ai.*', () => {
    const env = normalizeOne(
      {
        name: 'ai.generateText.doGenerate',
        attributes: {
          'ai.operationId': 'ai.generateText.doGenerate',
          'operation.name': 'ai.generateText.doGenerate weather-agent',
          'ai.model.id': 'gpt-4o',
          'ai.model.provider': 'openai.chat',
          'ai.telemetry.functionId': 'weather-agent',
          'ai.telemetry.metadata.sessionId': 's1',
          'ai.prompt.messages': '[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}]',
          'ai.prompt.tools': ['{"type":"function","name":"get_weather","description":"Current weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}'],
          'ai.prompt.toolChoice': '{"type":"auto"}',
          'ai.response.toolCalls': '[{"toolCallId":"call_1","toolName":"get_weather","input":"{\\"city\\":\\"Paris\\"}"}]',
          'ai.response.finishReason': 'tool-calls',
          'ai.response.model': 'gpt-4o-2024-08-06',
          'ai.usage.inputTokens': 52,
          'ai.usage.outputTokens': 9,
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.system': 'openai.chat',
          'gen_ai.usage.input_tokens': 52,
          'gen_ai.usage.output_tokens': 9,
        },
      },
      { scope: AI },
    );
    expect(env.genai).toEqual({
      family: 'vercel_ai',
      operation: 'chat',
      input_messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      output_messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      ],
      tool_definitions: [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
      request_model: 'gpt-4o',
      response_model: 'gpt-4o-2024-08-06',
      provider: 'openai',
      usage: { input_tokens: 52, output_tokens: 9, total_tokens: 61 },
      agent_name: 'weather-agent',
      conversation_id: 's1',
    });
    expect(env.attributes).toEqual({});
  });

  it('reads v4 shapes: args, result, tool-result parts, parameters', () => {
    const env = normalizeOne(
      {
        attributes: {
          'ai.operationId': 'ai.streamText.doStream',
          'ai.prompt.messages': JSON.stringify([
            { role: 'user', content: 'Weather?' },
            { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', args: { city: 'Paris' } }] },
            { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'get_weather', result: { temp: 14 } }] },
          ]),
          'ai.prompt.tools': ['{"type":"function","name":"get_weather","parameters":{"type":"object"}}'],
          'ai.response.text': 'It is 14C.',
          'ai.response.toolCalls': '[{"toolCallType":"function","toolCallId":"c2","toolName":"log","args":"{\\"x\\":1}"}]',
          'ai.usage.promptTokens': 10,
          'ai.usage.completionTokens': 5,
        },
      },
      { scope: { name: 'ai' } },
    );
    expect(env.genai).toEqual({
      family: 'vercel_ai',
      operation: 'chat',
      input_messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '{"temp":14}', tool_call_id: 'c1' },
      ],
      output_messages: [
        { role: 'assistant', content: 'It is 14C.', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'log', arguments: '{"x":1}' } }] },
      ],
      tool_definitions: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    });
  });

  it('reads v5 tool-result outputs and the outer ai.prompt', () => {
    const env = normalizeOne(
      {
        name: 'ai.generateText',
        attributes: {
          'ai.operationId': 'ai.generateText',
          'ai.prompt': JSON.stringify({
            system: 'Be brief.',
            messages: [
              { role: 'user', content: 'Weather?' },
              { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'w', output: { type: 'text', value: 'rainy' } }] },
              { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'w', output: { type: 'json', value: { a: 1 } } }] },
            ],
          }),
          'ai.response.text': 'Rainy.',
        },
      },
      { scope: AI },
    );
    expect(env.genai.operation).toBe('invoke_agent');
    expect(env.genai.input_messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      { role: 'tool', content: 'rainy', tool_call_id: 'c1' },
      { role: 'tool', content: '{"a":1}', tool_call_id: 'c2' },
    ]);
    expect(env.genai.output_messages).toEqual([{ role: 'assistant', content: 'Rainy.' }]);
  });

  it('turns ai.toolCall spans into tool_execution (v4 args/result and v5 input/output)', () => {
    const v4 = normalizeOne(
      { name: 'ai.toolCall', attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', 'ai.toolCall.id': 'c1', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '"rainy"' } },
      { scope: AI },
    );
    expect(v4.genai).toEqual({
      family: 'vercel_ai',
      operation: 'execute_tool',
      tool_execution: { name: 'get_weather', call_id: 'c1', arguments: '{"city":"Paris"}', result: 'rainy' },
    });
    const v5 = normalizeOne(
      {
        name: 'ai.toolCall',
        attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', 'ai.toolCall.id': 'c1', 'ai.toolCall.input': '{"city":"Paris"}' },
        status: { code: 2, message: 'boom' },
      },
      { scope: AI },
    );
    expect(v5.genai.tool_execution).toEqual({ name: 'get_weather', call_id: 'c1', arguments: '{"city":"Paris"}', error: 'boom' });
  });
});
