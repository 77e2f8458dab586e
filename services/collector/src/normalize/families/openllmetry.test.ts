import { describe, expect, it } from 'vitest';
import { normalizeOne } from '../test-support.ts';

describe('OpenLLMetry', () => {
  it('normalizes the indexed legacy example', () => {
    const env = normalizeOne({
      name: 'openai.chat',
      attributes: {
        'llm.request.type': 'chat',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Weather in Paris?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.finish_reason': 'tool_calls',
        'gen_ai.completion.0.tool_calls.0.id': 'call_1',
        'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
        'gen_ai.completion.0.tool_calls.0.arguments': '{"city": "Paris"}',
        'llm.request.functions.0.name': 'get_weather',
        'llm.request.functions.0.description': 'Current weather',
        'llm.request.functions.0.parameters': '{"type":"object","properties":{"city":{"type":"string"}}}',
        'gen_ai.usage.prompt_tokens': 52,
        'gen_ai.usage.completion_tokens': 9,
        'llm.usage.total_tokens': 61,
        'traceloop.association.properties.session_id': 's1',
        'traceloop.workflow.name': 'weather',
      },
    });
    expect(env.genai).toEqual({
      family: 'openllmetry',
      operation: 'chat',
      input_messages: [{ role: 'user', content: 'Weather in Paris?' }],
      output_messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      ],
      tool_definitions: [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
      request_model: 'gpt-4o',
      provider: 'openai',
      usage: { input_tokens: 52, output_tokens: 9, total_tokens: 61 },
      conversation_id: 's1',
    });
    expect(env.attributes).toEqual({ 'traceloop.workflow.name': 'weather' });
  });

  it('reads history with tool calls and tool results, and multimodal content lists', () => {
    const env = normalizeOne({
      attributes: {
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'Be brief.',
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': '[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]',
        'gen_ai.prompt.2.role': 'assistant',
        'gen_ai.prompt.2.tool_calls.0.id': 'call_1',
        'gen_ai.prompt.2.tool_calls.0.name': 'lookup',
        'gen_ai.prompt.2.tool_calls.0.arguments': '"{\\"q\\":\\"y\\"}"',
        'gen_ai.prompt.3.role': 'tool',
        'gen_ai.prompt.3.content': 'a cat',
        'gen_ai.prompt.3.tool_call_id': 'call_1',
        'gen_ai.prompt.10.role': 'user',
        'gen_ai.prompt.10.content': 'later',
      },
    });
    expect(env.genai.input_messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is this?\n[image: https://x/y.png]' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"y"}' } }] },
      { role: 'tool', content: 'a cat', tool_call_id: 'call_1' },
      { role: 'user', content: 'later' },
    ]);
  });

  it('turns a decorated tool span into tool_execution', () => {
    const env = normalizeOne({
      name: 'get_weather.tool',
      attributes: {
        'traceloop.span.kind': 'tool',
        'traceloop.entity.name': 'get_weather',
        'gen_ai.tool.name': 'get_weather',
        'traceloop.entity.input': '{"args":[],"kwargs":{"city":"Paris"}}',
        'traceloop.entity.output': '"rainy, 14C"',
        'traceloop.workflow.name': 'weather',
      },
    });
    expect(env.genai).toEqual({
      family: 'openllmetry',
      operation: 'execute_tool',
      tool_execution: { name: 'get_weather', arguments: '{"city":"Paris"}', result: 'rainy, 14C' },
    });
  });

  it('reads agent spans and the newer flat tool definitions', () => {
    const env = normalizeOne({
      name: 'planner.agent',
      attributes: {
        'traceloop.span.kind': 'agent',
        'traceloop.entity.name': 'planner',
        'traceloop.entity.version': '3',
        'gen_ai.tool.definitions.0.name': 'search',
        'gen_ai.tool.definitions.0.parameters': '{"type":"object"}',
      },
    });
    expect(env.genai).toEqual({
      family: 'openllmetry',
      operation: 'invoke_agent',
      agent_name: 'planner',
      agent_version: '3',
      tool_definitions: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }],
    });
  });
});
