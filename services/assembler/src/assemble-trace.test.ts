import { describe, expect, it } from 'vitest';
import type { LogRecordEnvelope } from '../../../shared/contracts/schemas/index.ts';
import { assembleTrace } from './assemble-trace.ts';
import { appendDeduplicated, linkToolResultsByPosition, sameMessage } from './merge-history.ts';
import { assistant, createTestSpan, system, toolCall, toolResult, user } from '../../../test/helpers/span-factory.ts';

const T = 'b'.repeat(32);
const ROOT = '1'.repeat(16);

describe('appendDeduplicated', () => {
  it('appends only what follows the repeated history', () => {
    const h1 = appendDeduplicated([], [system('s'), user('u1'), toolCall('c1', 'f', { a: 1 })]);
    const h2 = appendDeduplicated(h1, [system('s'), user('u1'), toolCall('c1', 'f', { a: 1 }), toolResult('c1', 'r'), assistant('done')]);
    expect(h2).toEqual([system('s'), user('u1'), toolCall('c1', 'f', { a: 1 }), toolResult('c1', 'r'), assistant('done')]);
  });

  it('treats arguments that differ only in spacing or key order as the same call', () => {
    const a = { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{"a":1,"b":2}' } }] };
    const b = { ...a, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{ "b": 2, "a": 1 }' } }] };
    expect(appendDeduplicated([user('u'), a], [user('u'), b, assistant('x')])).toEqual([user('u'), a, assistant('x')]);
  });

  it('keeps a genuinely repeated turn (a loop) once per occurrence', () => {
    const h1 = appendDeduplicated([], [user('u'), assistant('same')]);
    const h2 = appendDeduplicated(h1, [user('u'), assistant('same'), user('again'), assistant('same')]);
    expect(h2).toEqual([user('u'), assistant('same'), user('again'), assistant('same')]);
  });

  it('does not repeat a system prompt re-sent with a trimmed context', () => {
    const h = appendDeduplicated([system('s'), user('u1'), assistant('a1'), user('u2'), assistant('a2')], [system('s'), user('u2'), assistant('a2'), user('u3'), assistant('a3')]);
    expect(h).toEqual([system('s'), user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3'), assistant('a3')]);
  });
});

describe('lossy history copies', () => {
  it('matches a turn whose copy lost its call ids or its calls, but not a different call', () => {
    const withId = toolCall('c1', 'f', { a: 1 });
    expect(sameMessage(withId, toolCall('', 'f', { a: 1 }))).toBe(true);
    expect(sameMessage(withId, { role: 'assistant', content: null })).toBe(true);
    expect(sameMessage(withId, toolCall('c2', 'f', { a: 1 }))).toBe(false);
    expect(sameMessage(withId, toolCall('c1', 'f', { a: 2 }))).toBe(false);
    expect(sameMessage(assistant('text'), { role: 'assistant', content: 'text', tool_calls: withId.tool_calls! })).toBe(false);
    expect(sameMessage(toolResult('c1', 'r'), { role: 'tool', content: 'r' })).toBe(true);
    expect(sameMessage(toolResult('c1', 'r'), toolResult('c2', 'r'))).toBe(false);
  });

  it('deduplicates a history whose later copy lost the tool-call details', () => {
    const h1 = appendDeduplicated([], [user('u'), toolCall('', 'f', { a: 1 })]);
    const h2 = appendDeduplicated(h1, [user('u'), { role: 'assistant', content: null }, { role: 'tool', content: 'r' }, assistant('done')]);
    expect(h2).toEqual([user('u'), toolCall('', 'f', { a: 1 }), { role: 'tool', content: 'r' }, assistant('done')]);
  });

  it('numbers calls without ids and links id-less results to them in order', () => {
    const turn = { role: 'assistant' as const, content: null, tool_calls: [...toolCall('', 'f', { a: 1 }).tool_calls!, ...toolCall('k', 'g', {}).tool_calls!] };
    const linked = linkToolResultsByPosition([user('u'), turn, { role: 'tool', content: 'from g', tool_call_id: 'k' }, { role: 'tool', content: 'from f' }]);
    expect(linked[1].tool_calls!.map((c) => c.id)).toEqual(['call_1_0', 'k']);
    expect(linked.slice(2)).toEqual([toolResult('k', 'from g'), toolResult('call_1_0', 'from f')]);
  });
});

describe('assembleTrace', () => {
  it('uses the innermost model calls when a wrapper span repeats their dialog', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 0, endMs: 100, genai: { input_messages: [user('q')], output_messages: [assistant('a2')], usage: { input_tokens: 30, output_tokens: 6 } } });
    const step = createTestSpan({ trace_id: T, span_id: '2'.repeat(16), parent_span_id: ROOT, startMs: 1, endMs: 99 });
    const inner1 = createTestSpan({ trace_id: T, parent_span_id: step.span_id, startMs: 2, endMs: 10, genai: { input_messages: [user('q')], output_messages: [toolCall('c', 'f', {})], usage: { input_tokens: 10, output_tokens: 2 } } });
    const inner2 = createTestSpan({ trace_id: T, parent_span_id: step.span_id, startMs: 20, endMs: 30, genai: { input_messages: [user('q'), toolCall('c', 'f', {}), toolResult('c', 'r')], output_messages: [assistant('a2')], usage: { input_tokens: 20, output_tokens: 4 } } });
    const unit = assembleTrace({ traceId: T, spans: [root, step, inner1, inner2], logs: [] }, 1);
    expect(unit.message_history).toEqual([user('q'), toolCall('c', 'f', {}), toolResult('c', 'r'), assistant('a2')]);
    expect(unit.usage).toEqual({ input_tokens: 30, output_tokens: 6 });
  });


  it('builds one dialog from two model calls and a tool span, with usage, agent and model', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, name: 'invoke_agent Weather', startMs: 1000, endMs: 2000, genai: { agent_name: 'Weather', agent_version: '1.2.0', conversation_id: 'conv-1' }, environment: 'prod' });
    const chat1 = createTestSpan({
      trace_id: T, parent_span_id: ROOT, name: 'chat gpt-4o', startMs: 1100, endMs: 1200,
      genai: {
        input_messages: [system('You are a weather bot'), user('Weather in Paris?')],
        output_messages: [toolCall('call_1', 'get_weather', { city: 'Paris' })],
        tool_definitions: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        request_model: 'gpt-4o', response_model: 'gpt-4o-2024-08-06', usage: { input_tokens: 50, output_tokens: 9 },
      },
    });
    const tool = createTestSpan({ trace_id: T, parent_span_id: ROOT, name: 'execute_tool get_weather', startMs: 1250, endMs: 1300, genai: { tool_execution: { name: 'get_weather', call_id: 'call_1', arguments: '{"city":"Paris"}', result: 'rainy, 14C' } } });
    const chat2 = createTestSpan({
      trace_id: T, parent_span_id: ROOT, name: 'chat gpt-4o', startMs: 1400, endMs: 1500,
      genai: {
        input_messages: [system('You are a weather bot'), user('Weather in Paris?'), toolCall('call_1', 'get_weather', { city: 'Paris' }), toolResult('call_1', 'rainy, 14C')],
        output_messages: [assistant('Rainy, 14C.')],
        request_model: 'gpt-4o', response_model: 'gpt-4o-2024-08-06', usage: { input_tokens: 70, output_tokens: 5 },
      },
    });
    const unit = assembleTrace({ traceId: T, spans: [chat2, tool, root, chat1], logs: [] }, 5000);
    expect(unit.message_history).toEqual([
      system('You are a weather bot'),
      user('Weather in Paris?'),
      toolCall('call_1', 'get_weather', { city: 'Paris' }),
      toolResult('call_1', 'rainy, 14C'),
      assistant('Rainy, 14C.'),
    ]);
    expect(unit.model_output).toBe('Rainy, 14C.');
    expect(unit.model_input).toHaveLength(4);
    expect(unit.tool_calls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', result: 'rainy, 14C', error: null }]);
    expect(unit.tools.map((t) => t.function.name)).toEqual(['get_weather']);
    expect(unit.usage).toEqual({ input_tokens: 120, output_tokens: 14 });
    expect(unit).toMatchObject({ unit_id: T, kind: 'trace', agent_name: 'Weather', agent_version: '1.2.0', conversation_id: 'conv-1', environment: 'prod', model: 'gpt-4o-2024-08-06', span_count: 4, start_time_ms: 1000, end_time_ms: 2000, truncated: false, errors: [] });
  });

  it('inserts a result that exists only as a tool span after the call, and records its error', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 0, endMs: 100 });
    const chat = createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 10, endMs: 20, genai: { input_messages: [user('order 7?')], output_messages: [toolCall('c9', 'lookup_order', { id: 7 })] } });
    const tool = createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 30, endMs: 40, status: { code: 2, message: 'order service timeout' }, genai: { tool_execution: { name: 'lookup_order', call_id: 'c9', arguments: '{"id":7}', error: 'order service timeout' } } });
    const chat2 = createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 50, endMs: 60, genai: { input_messages: [user('order 7?'), toolCall('c9', 'lookup_order', { id: 7 })], output_messages: [assistant('Sorry, I could not look that up.')] } });
    const unit = assembleTrace({ traceId: T, spans: [root, chat, tool, chat2], logs: [] }, 1);
    expect(unit.message_history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(unit.message_history[2]).toEqual({ role: 'tool', content: 'order service timeout', tool_call_id: 'c9', name: 'lookup_order' });
    expect(unit.tool_calls[0]).toEqual({ id: 'c9', name: 'lookup_order', arguments: '{"id":7}', result: 'order service timeout', error: 'order service timeout' });
    expect(unit.errors).toEqual([{ span_id: tool.span_id, message: 'order service timeout' }]);
  });

  it('reads legacy message events when the span has no message attributes', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 0, endMs: 100 });
    const base = { schema_version: 1 as const, kind: 'log' as const, trace_id: T, span_id: ROOT, attributes: {}, received_at_ms: 0 };
    const unit = assembleTrace({
      traceId: T,
      spans: [root],
      logs: [
        { ...base, event_name: 'gen_ai.choice', time_unix_nano: '300', sequence: 2, is_output: true, message: assistant('Hello!') },
        { ...base, event_name: 'gen_ai.user.message', time_unix_nano: '200', sequence: 1, is_output: false, message: user('Hi') },
        { ...base, event_name: 'gen_ai.system.message', time_unix_nano: '200', sequence: 0, is_output: false, message: system('Be nice') },
      ],
    }, 1);
    expect(unit.message_history).toEqual([system('Be nice'), user('Hi'), assistant('Hello!')]);
    expect(unit.model_output).toBe('Hello!');
  });

  it('counts usage once when a wrapper span repeats its children\'s total', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, genai: { usage: { input_tokens: 30, output_tokens: 6 } } });
    const a = createTestSpan({ trace_id: T, parent_span_id: ROOT, genai: { usage: { input_tokens: 10, output_tokens: 2 } } });
    const b = createTestSpan({ trace_id: T, parent_span_id: ROOT, genai: { usage: { input_tokens: 20, output_tokens: 4 } } });
    expect(assembleTrace({ traceId: T, spans: [root, a, b], logs: [] }, 1).usage).toEqual({ input_tokens: 30, output_tokens: 6 });
  });

  it('flags a truncated history and a missing root', () => {
    const child = createTestSpan({ trace_id: T, parent_span_id: ROOT, dropped_attributes_count: 3, genai: { input_messages: [user('u')] } });
    const unit = assembleTrace({ traceId: T, spans: [child], logs: [] }, 1);
    expect(unit.truncated).toBe(true);
    expect(unit.errors).toEqual([{ message: 'root span never arrived; unit assembled from the spans seen' }]);
  });

  it('gives a fragment of late spans its own unit id and says why', () => {
    const span = createTestSpan({ trace_id: T, parent_span_id: ROOT, genai: { input_messages: [user('late')] } });
    const unit = assembleTrace({ traceId: T, unitId: `${T}-late-${span.span_id}`, spans: [span], logs: [] }, 1);
    expect([unit.unit_id, unit.trace_ids]).toEqual([`${T}-late-${span.span_id}`, [T]]);
    expect(unit.errors).toEqual([{ message: `late spans of trace ${T}, which was already scored as unit ${T}; scored apart so as not to replace it` }]);
  });

  it('takes an entry span whose parent is in a caller as the root: no error, its agent', () => {
    const entry = createTestSpan({ trace_id: T, span_id: ROOT, parent_span_id: 'e'.repeat(16), genai: { operation: 'invoke_agent', agent_name: 'Support' } });
    const chat = createTestSpan({ trace_id: T, parent_span_id: ROOT, genai: { input_messages: [user('hi')], output_messages: [assistant('hello')] } });
    const unit = assembleTrace({ traceId: T, spans: [chat, entry], logs: [] }, 1);
    expect([unit.errors, unit.agent_name]).toEqual([[], 'Support']);
  });

  it('merges a model call whose input and output arrive as two operation-details records', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 0, endMs: 100 });
    const chat = createTestSpan({ trace_id: T, parent_span_id: ROOT, span_id: '2'.repeat(16), startMs: 10, endMs: 20 });
    const details = (sequence: number, genai: Record<string, unknown>): LogRecordEnvelope => ({
      schema_version: 1, kind: 'log', trace_id: T, span_id: chat.span_id, event_name: 'gen_ai.client.inference.operation.details',
      time_unix_nano: String(15_000_000 + sequence), sequence, is_output: false, attributes: {}, received_at_ms: 1, genai: { family: 'otel_genai', ...genai },
    });
    const unit = assembleTrace(
      { traceId: T, spans: [root, chat], logs: [details(0, { input_messages: [system('be brief'), user('capital of France?')] }), details(1, { output_messages: [assistant('Paris.')] })] },
      1,
    );
    expect(unit.message_history).toEqual([system('be brief'), user('capital of France?'), assistant('Paris.')]);
    expect(unit.model_output).toBe('Paris.');
  });

  it('orders model calls that start in the same instant by the history they re-send', () => {
    const root = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 0, endMs: 100 });
    const call = (k: number) => toolCall(`call_${k}`, 'check', { day: 1 });
    const history = (n: number) => [user('book'), ...Array.from({ length: n }, (_, k) => [call(k), toolResult(`call_${k}`, 'none')]).flat()];
    // Three calls with identical timestamps, arriving in the wrong order.
    const chats = [2, 0, 1].map((k) =>
      createTestSpan({ trace_id: T, parent_span_id: ROOT, span_id: String(k + 2).repeat(16), startMs: 10, endMs: 10, genai: { input_messages: history(k), output_messages: [k === 2 ? assistant('no table') : call(k)] } }),
    );
    const unit = assembleTrace({ traceId: T, spans: [root, ...chats], logs: [] }, 1);
    expect(unit.message_history).toEqual([...history(2), assistant('no table')]);
  });
});

describe('several agents in one trace (a handoff)', () => {
  const HANDOFF = '2'.repeat(16);
  const triageSpan = createTestSpan({ trace_id: T, span_id: ROOT, startMs: 1000, genai: { operation: 'invoke_agent', agent_name: 'triage' } });
  const weatherSpan = createTestSpan({ trace_id: T, span_id: HANDOFF, parent_span_id: ROOT, startMs: 1100, genai: { operation: 'invoke_agent', agent_name: 'weather' } });
  const transfer = toolCall('c1', 'transfer_to_weather', {});
  const lookup = toolCall('c2', 'get_weather', { city: 'Paris' });
  const chat = (parent: string, startMs: number, input: ReturnType<typeof user>[], output: ReturnType<typeof user>[], agent = 'Default Agent') =>
    createTestSpan({ trace_id: T, parent_span_id: parent, startMs, genai: { operation: 'chat', agent_name: agent, input_messages: input, output_messages: output } });

  it("names each assistant turn by its agent and puts the new agent's system prompt where its turns begin", () => {
    const spans = [
      triageSpan,
      weatherSpan,
      chat(ROOT, 1010, [system('triage'), user('Paris?')], [transfer]),
      chat(HANDOFF, 1110, [system('weather'), user('Paris?'), transfer, toolResult('c1', 'to weather')], [lookup]),
      chat(HANDOFF, 1120, [system('weather'), user('Paris?'), transfer, toolResult('c1', 'to weather'), lookup, toolResult('c2', 'sunny')], [assistant('Sunny.')]),
    ];
    const unit = assembleTrace({ traceId: T, spans, logs: [] }, 0);
    expect(unit.message_history).toEqual([
      system('triage'),
      user('Paris?'),
      { ...transfer, name: 'triage' },
      toolResult('c1', 'to weather'),
      system('weather'),
      { ...lookup, name: 'weather' },
      toolResult('c2', 'sunny'),
      { ...assistant('Sunny.'), name: 'weather' },
    ]);
    expect(unit.agent_name).toBe('triage');
  });

  it('names no turn when every call belongs to one agent', () => {
    const spans = [triageSpan, chat(ROOT, 1010, [user('Hi')], [assistant('Hello')], 'triage')];
    expect(assembleTrace({ traceId: T, spans, logs: [] }, 0).message_history).toEqual([user('Hi'), assistant('Hello')]);
  });
});

describe('tool spans without call ids', () => {
  it("match a call by the bare value of its only argument (LangChain's TOOL spans), and add no call of their own", () => {
    const call = toolCall('c1', 'get_weather', { city: 'Paris' });
    const spans = [
      createTestSpan({ trace_id: T, span_id: ROOT, startMs: 1000, genai: { operation: 'chat', input_messages: [user('Paris?')], output_messages: [call] } }),
      createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 1010, status: { code: 2, message: 'boom' }, genai: { operation: 'execute_tool', tool_execution: { name: 'get_weather', arguments: 'Paris', error: 'boom' } } }),
      createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 1020, genai: { operation: 'execute_tool', tool_execution: { name: 'get_weather', arguments: 'Rome' } } }),
    ];
    const calls = assembleTrace({ traceId: T, spans, logs: [] }, 0).tool_calls;
    expect(calls.map((c) => [c.id, c.arguments, c.error])).toEqual([
      ['c1', '{"city":"Paris"}', 'boom'],
      [`span:${spans[2].span_id}`, 'Rome', null],
    ]);
  });
});

describe('spans that carry only the messages new to their call', () => {
  it('are assembled in span order: nothing shared, nothing dropped, a repeated call kept', () => {
    const check = (id: string) => toolCall(id, 'check_order', { order_id: '42' });
    const news: [ReturnType<typeof user>[], ReturnType<typeof user>[]][] = [
      [[system('s'), user('Has order 42 shipped?')], [check('c1')]],
      [[toolResult('c1', 'processing')], [check('c2')]],
      [[toolResult('c2', 'processing')], [assistant('Still processing.')]],
      [[user('Has order 42 shipped?')], [check('c3')]],
      [[toolResult('c3', 'shipped')], [assistant('It has shipped.')]],
    ];
    const spans = [
      createTestSpan({ trace_id: T, span_id: ROOT, startMs: 1000, endMs: 2000 }),
      ...news.map(([input, output], i) => createTestSpan({ trace_id: T, parent_span_id: ROOT, startMs: 1010 + i * 10, genai: { operation: 'chat', input_messages: input, output_messages: output } })),
    ];
    const unit = assembleTrace({ traceId: T, spans, logs: [] }, 0);
    expect(unit.message_history).toEqual(news.flatMap(([input, output]) => [...input, ...output]));
    expect(unit.tool_calls.map((c) => [c.id, c.result])).toEqual([['c1', 'processing'], ['c2', 'processing'], ['c3', 'shipped']]);
  });
});
