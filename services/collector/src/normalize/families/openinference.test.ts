import { describe, expect, it } from 'vitest';
import { normalizeOne } from '../test-support.ts';

describe('OpenInference', () => {
  it('normalizes the LLM span example', () => {
    const env = normalizeOne({
      name: 'ChatCompletion',
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o',
        'llm.provider': 'openai',
        'session.id': 's1',
        'user.id': 'u1',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'Weather in Paris?',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'get_weather',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        'llm.tools.0.tool.json_schema': '{"type":"function","function":{"name":"get_weather"}}',
        'llm.token_count.prompt': 52,
        'llm.token_count.completion': 9,
        'llm.token_count.total': 61,
        'llm.invocation_parameters': '{"temperature":0}',
      },
    });
    expect(env.genai).toEqual({
      family: 'openinference',
      operation: 'chat',
      input_messages: [{ role: 'user', content: 'Weather in Paris?' }],
      output_messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      ],
      tool_definitions: [{ type: 'function', function: { name: 'get_weather' } }],
      request_model: 'gpt-4o',
      response_model: 'gpt-4o',
      provider: 'openai',
      usage: { input_tokens: 52, output_tokens: 9, total_tokens: 61 },
      conversation_id: 's1',
    });
    expect(env.attributes).toEqual({ 'user.id': 'u1', 'llm.invocation_parameters': '{"temperature":0}' });
  });

  it('reads multipart contents and tool results in the history', () => {
    const env = normalizeOne({
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.contents.0.message_content.type': 'text',
        'llm.input_messages.0.message.contents.0.message_content.text': 'Look:',
        'llm.input_messages.0.message.contents.1.message_content.type': 'image',
        'llm.input_messages.0.message.contents.1.message_content.image.image.url': 'https://x/y.png',
        'llm.input_messages.1.message.role': 'tool',
        'llm.input_messages.1.message.content': '{"temp": 14}',
        'llm.input_messages.1.message.tool_call_id': 'call_1',
        'llm.input_messages.1.message.name': 'get_weather',
      },
    });
    expect(env.genai.input_messages).toEqual([
      { role: 'user', content: 'Look:\n[image: https://x/y.png]' },
      { role: 'tool', content: '{"temp":14}', name: 'get_weather', tool_call_id: 'call_1' },
    ]);
  });

  it('turns a TOOL span into tool_execution', () => {
    const env = normalizeOne({
      name: 'get_weather',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'tool.id': 'call_1',
        'tool.description': 'Current weather',
        'input.value': '{"city":"Paris"}',
        'input.mime_type': 'application/json',
        'output.value': 'rainy, 14C',
        'output.mime_type': 'text/plain',
        'session.id': 's1',
      },
    });
    expect(env.genai).toEqual({
      family: 'openinference',
      operation: 'execute_tool',
      tool_execution: { name: 'get_weather', call_id: 'call_1', arguments: '{"city":"Paris"}', result: 'rainy, 14C' },
      conversation_id: 's1',
    });
    expect(env.attributes).toEqual({});
  });
});

describe('OpenInference: LangGraph and the OpenAI Agents SDK', () => {
  it('does not read the messages on a CHAIN or AGENT span (the framework state) as a model call', () => {
    for (const kind of ['CHAIN', 'AGENT']) {
      const env = normalizeOne({
        name: 'call_model',
        attributes: { 'openinference.span.kind': kind, 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'Hi' },
      });
      expect(env.genai.input_messages).toBeUndefined();
      expect(env.attributes).toEqual({});
    }
  });

  it("reads a TOOL span's LangChain ToolMessage in messages_to_dict form as the result and call id", () => {
    const env = normalizeOne({
      name: 'get_weather',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'input.value': 'Paris',
        'output.value': JSON.stringify({ type: 'tool', data: { content: '{"city": "Paris"}', type: 'tool', name: 'get_weather', tool_call_id: 'call_1', status: 'success' } }),
      },
    });
    expect(env.genai.tool_execution).toEqual({ name: 'get_weather', call_id: 'call_1', arguments: 'Paris', result: '{"city":"Paris"}' });
  });

  it("reads the Agents SDK's `handoff to <agent>` TOOL span as its transfer_to_<agent> call", () => {
    const env = normalizeOne({ name: 'handoff to Weather Agent', attributes: { 'openinference.span.kind': 'TOOL', 'input.value': 'triage', 'output.value': 'Weather Agent' } });
    expect(env.genai.tool_execution).toEqual({ name: 'transfer_to_weather_agent' });
  });
});

describe('OpenInference: LlamaIndex tool spans', () => {
  it('reads FunctionTool kwargs as the arguments and a ToolOutput as the text the model is sent', () => {
    const env = normalizeOne({
      name: 'FunctionTool.acall',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'input.value': JSON.stringify({ kwargs: { city: 'Paris' } }),
        'output.value': JSON.stringify({ blocks: [{ block_type: 'text', text: "{'city': 'Paris'}" }], tool_name: 'get_weather', raw_input: { city: 'Paris' }, raw_output: { city: 'Paris' }, is_error: false }),
      },
    });
    expect(env.genai.tool_execution).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}', result: "{'city': 'Paris'}" });
  });

  it('flags a ToolOutput marked is_error', () => {
    const env = normalizeOne({
      name: 'FunctionTool.acall',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'output.value': JSON.stringify({ blocks: [{ text: 'unknown city' }], tool_name: 'get_weather', raw_output: 'unknown city', is_error: true }),
      },
    });
    expect(env.genai.tool_execution).toEqual({ name: 'get_weather', result: 'unknown city', error: 'unknown city' });
  });
});
