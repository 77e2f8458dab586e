import { describe, expect, it } from 'vitest';
import { normalizeLogs, normalizeOne } from '../test-support.ts';

const T = '1700000000500000000';

describe('OTel GenAI legacy events', () => {
  it('normalizes log-record events (eventName and event.name attribute), gen_ai.choice with tool_calls inside or beside message', () => {
    const envs = normalizeLogs([
      { eventName: 'gen_ai.system.message', body: { content: 'You are a weather bot' }, attributes: { 'gen_ai.system': 'openai' } },
      { attributes: { 'event.name': 'gen_ai.user.message', 'gen_ai.system': 'openai' }, body: { content: 'Weather in Paris?' } },
      {
        eventName: 'gen_ai.choice',
        body: { index: 0, finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } },
      },
      {
        eventName: 'gen_ai.assistant.message',
        body: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      },
      { eventName: 'gen_ai.tool.message', body: { content: 'rainy, 14C', id: 'call_1' } },
      { eventName: 'gen_ai.choice', body: { index: 0, finish_reason: 'stop', message: { content: 'Rainy.' }, tool_calls: [] } },
      { eventName: 'gen_ai.choice', body: { index: 0, message: { role: 'assistant' }, tool_calls: [{ id: 'c2', function: { name: 'f', arguments: '{}' } }] } },
    ]);
    expect(envs.map((e) => [e.event_name, e.is_output, e.message, e.sequence])).toEqual([
      ['gen_ai.system.message', false, { role: 'system', content: 'You are a weather bot' }, 0],
      ['gen_ai.user.message', false, { role: 'user', content: 'Weather in Paris?' }, 1],
      ['gen_ai.choice', true, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, 2],
      ['gen_ai.assistant.message', false, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, 3],
      ['gen_ai.tool.message', false, { role: 'tool', content: 'rainy, 14C', tool_call_id: 'call_1' }, 4],
      ['gen_ai.choice', true, { role: 'assistant', content: 'Rainy.' }, 5],
      ['gen_ai.choice', true, { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 6],
    ]);
    expect(envs[0]).toEqual({
      schema_version: 1,
      kind: 'log',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      event_name: 'gen_ai.system.message',
      time_unix_nano: '1700000000600000000',
      sequence: 0,
      message: { role: 'system', content: 'You are a weather bot' },
      is_output: false,
      service_name: 'weather-agent',
      attributes: { 'gen_ai.system': 'openai' },
      received_at_ms: 1,
    });
    expect(envs[1].attributes).toEqual({ 'gen_ai.system': 'openai' });
  });

  it('keeps a log record that is not a message event, without a message', () => {
    const [env] = normalizeLogs([{ eventName: 'app.started', body: 'hello' }]);
    expect(env.message).toBeUndefined();
    expect(env.is_output).toBe(false);
  });

  it('reads message events attached to the span as span events, and drops them from events', () => {
    const env = normalizeOne({
      attributes: { 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o' },
      events: [
        { name: 'gen_ai.user.message', timeUnixNano: T, attributes: { content: 'Weather in Paris?' } },
        { name: 'gen_ai.choice', timeUnixNano: T, attributes: { index: 0, finish_reason: 'stop', message: '{"role":"assistant","content":"Rainy."}' } },
        { name: 'exception', timeUnixNano: T, attributes: { 'exception.message': 'late' } },
      ],
    });
    expect(env.genai).toEqual({
      family: 'otel_genai_legacy',
      input_messages: [{ role: 'user', content: 'Weather in Paris?' }],
      output_messages: [{ role: 'assistant', content: 'Rainy.' }],
      request_model: 'gpt-4o',
      provider: 'openai',
    });
    expect(env.events).toEqual([{ name: 'exception', time_unix_nano: T, attributes: { 'exception.message': 'late' } }]);
  });

  it('reads the v1.26 gen_ai.content.prompt/completion span events', () => {
    const env = normalizeOne({
      events: [
        { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': '[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]' } },
        { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': '[{"role":"assistant","content":"Hello","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\\"a\\": 1}"}}]}]' } },
      ],
    });
    expect(env.genai).toEqual({
      family: 'otel_genai_legacy',
      input_messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      output_messages: [{ role: 'assistant', content: 'Hello', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }],
    });
    expect(env.events).toEqual([]);
  });
});
