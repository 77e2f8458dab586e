import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgentTracer } from './agent-tracer.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

function tracerFor() {
  return createAgentTracer({ tracer: provider.getTracer('test'), agentName: 'weather-bot', agentVersion: '1.2.0', conversationId: 'conv-1', simulationId: 'sim-7' });
}

describe('createAgentTracer', () => {
  it('records an agent run with a model call and a tool call as one trace', async () => {
    const agent = tracerFor();
    const answer = await agent.runAgent('weather-bot', 'Weather in Paris?', async () => {
      await agent.recordModelCall(
        {
          model: 'mock-accurate',
          temperature: 0,
          tools: [weatherTool],
          inputMessages: [
            { role: 'system', content: 'You are a weather bot' },
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
            { role: 'tool', tool_call_id: 'call_1', content: 'rainy, 14C' },
          ],
        },
        () => ({
          id: 'chatcmpl-1',
          model: 'mock-accurate-2024',
          choices: [{ message: { role: 'assistant', content: 'Rainy, 14C.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 52, completion_tokens: 9 },
        }),
      );
      const result = await agent.recordToolCall({ name: 'get_weather', callId: 'call_1', arguments: '{"city":"Paris"}' }, () => 'rainy, 14C');
      expect(result).toBe('rainy, 14C');
      return 'Rainy, 14C.';
    });
    expect(answer).toBe('Rainy, 14C.');

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['chat mock-accurate', 'execute_tool get_weather', 'invoke_agent weather-bot']);
    const [chat, tool, root] = spans as [(typeof spans)[0], (typeof spans)[0], (typeof spans)[0]];
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(chat.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(tool.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(root.parentSpanContext).toBeUndefined();

    const common = { 'gen_ai.agent.name': 'weather-bot', 'gen_ai.agent.version': '1.2.0', 'gen_ai.conversation.id': 'conv-1', 'tracecheck.simulation.id': 'sim-7' };
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(root.attributes).toEqual({
      ...common,
      'gen_ai.operation.name': 'invoke_agent',
      'tracecheck.scenario.input': 'Weather in Paris?',
      'tracecheck.scenario.result': 'Rainy, 14C.',
    });
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toEqual({
      ...common,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'mock-accurate',
      'gen_ai.request.temperature': 0,
      'gen_ai.system_instructions': '[{"type":"text","content":"You are a weather bot"}]',
      'gen_ai.input.messages':
        '[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},' +
        '{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]},' +
        '{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"rainy, 14C"}]}]',
      'gen_ai.tool.definitions': '[{"type":"function","name":"get_weather","description":"Weather by city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]',
      'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"Rainy, 14C."}],"finish_reason":"stop"}]',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.model': 'mock-accurate-2024',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.usage.input_tokens': 52,
      'gen_ai.usage.output_tokens': 9,
    });
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.attributes).toEqual({
      ...common,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': '{"city":"Paris"}',
      'gen_ai.tool.call.result': '"rainy, 14C"',
    });
  });

  it('records a tool-call answer with finish reason tool_call, and explicit output through the handle', async () => {
    const agent = createAgentTracer({ tracer: provider.getTracer('test'), agentName: 'a' });
    await agent.recordModelCall({ model: 'm', inputMessages: [{ role: 'user', content: 'hi' }] }, (call) => {
      call.setOutput({
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c9', type: 'function', function: { name: 'lookup_order', arguments: 'not json' } }] }],
        finishReasons: ['tool_calls'],
        usage: { inputTokens: 3, outputTokens: 4 },
      });
      return { choices: [{ message: { role: 'assistant', content: 'ignored' } }] };
    });
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes['gen_ai.output.messages']).toBe('[{"role":"assistant","parts":[{"type":"tool_call","id":"c9","name":"lookup_order","arguments":"not json"}],"finish_reason":"tool_call"}]');
    expect(span.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_call']);
    expect(span.attributes['gen_ai.usage.output_tokens']).toBe(4);
    expect(span.attributes['gen_ai.agent.name']).toBe('a');
    expect(span.attributes['gen_ai.conversation.id']).toBeUndefined();
  });

  it('marks a failing tool with status ERROR, error.type and an exception event, and rethrows', async () => {
    const agent = tracerFor();
    class OrderServiceError extends Error {
      override name = 'OrderServiceError';
    }
    await expect(
      agent.runAgent('weather-bot', { order: 'A-1' }, () =>
        agent.recordToolCall({ name: 'lookup_order', callId: 'call_2', arguments: { order_id: 'A-1' } }, () => {
          throw new OrderServiceError('order service timeout');
        }),
      ),
    ).rejects.toThrow('order service timeout');
    const [tool, root] = exporter.getFinishedSpans();
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'order service timeout' });
    expect(tool.attributes['error.type']).toBe('OrderServiceError');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"order_id":"A-1"}');
    expect(tool.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(tool.events.map((e) => [e.name, e.attributes?.['exception.type'], e.attributes?.['exception.message']])).toEqual([['exception', 'OrderServiceError', 'order service timeout']]);
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes['tracecheck.scenario.input']).toBe('{"order":"A-1"}');
    expect(root.attributes['tracecheck.scenario.result']).toBeUndefined();
  });

  it('records an explicit scenario result set through the run handle', async () => {
    const agent = tracerFor();
    await agent.runAgent('weather-bot', 'q', (run) => {
      run.setResult({ solved: false });
      return 42;
    });
    expect(exporter.getFinishedSpans()[0].attributes['tracecheck.scenario.result']).toBe('{"solved":false}');
  });
});
