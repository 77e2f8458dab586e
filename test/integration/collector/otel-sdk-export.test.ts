import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollector, type Collector } from '../../../services/collector/src/index.ts';
import { createRecordingProducer } from '../../../services/collector/src/testing/recording-producer.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { SpanEnvelopeSchema, type SpanEnvelope, type SpanRecord } from '../../../shared/contracts/schemas/index.ts';
import { waitFor } from '../../helpers/infra.ts';

// The real OTel JS SDK exporters (protobuf, JSON, gRPC) send GenAI spans to a real collector;
// the envelopes it produces must be exactly the same for all three.

const producer = createRecordingProducer();
let collector: Collector;

beforeAll(async () => {
  collector = createCollector({
    config: {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      limits: { maxBodyBytes: 20 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000 },
      topic: 'sdk-test',
    },
    producer,
    log: createSilentLogger(),
  });
  await collector.start();
});
afterAll(() => collector.shutdown());

const RESOURCE = { 'service.name': 'weather-agent', 'service.version': '2.1.0', 'deployment.environment.name': 'test' };
const T0 = 1_700_000_000;
const at = (seconds: number): [number, number] => [T0 + seconds, 0];
const nanos = (seconds: number): string => `${T0 + seconds}000000000`;

const INPUT = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]);
const OUTPUT = JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_call' }]);

/** One agent run: invoke_agent → chat (asks for a tool) → execute_tool (fails). Returns the span ids. */
function emitRun(tracer: Tracer): { traceId: string; root: string; chat: string; tool: string } {
  const root = tracer.startSpan('invoke_agent Weather', {
    kind: SpanKind.INTERNAL,
    startTime: at(0),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Weather', 'gen_ai.conversation.id': 'conv_42' },
  });
  const parent = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: at(1),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.system_instructions': '[{"type":"text","content":"You are a weather bot"}]',
        'gen_ai.input.messages': INPUT,
        'gen_ai.output.messages': OUTPUT,
        'gen_ai.usage.input_tokens': 52,
        'gen_ai.usage.output_tokens': 9,
        'gen_ai.response.finish_reasons': ['tool_call'],
      },
    },
    parent,
  );
  chat.end(at(2));
  const tool = tracer.startSpan(
    'execute_tool get_weather',
    {
      kind: SpanKind.INTERNAL,
      startTime: at(2),
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': 'call_1', 'gen_ai.tool.call.arguments': '{"city":"Paris"}' },
    },
    parent,
  );
  tool.recordException({ name: 'TimeoutError', message: 'weather API timed out' }, at(3));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather API timed out' });
  tool.end(at(3));
  root.end(at(4));
  return { traceId: root.spanContext().traceId, root: root.spanContext().spanId, chat: chat.spanContext().spanId, tool: tool.spanContext().spanId };
}

function expected(ids: { traceId: string; root: string; chat: string; tool: string }, scopeName: string): SpanRecord[] {
  const common = {
    schema_version: 1 as const,
    kind: 'span' as const,
    trace_id: ids.traceId,
    service_name: 'weather-agent',
    service_version: '2.1.0',
    environment: 'test',
    scope: { name: scopeName, version: '1.0.0' },
    resource_attributes: expect.objectContaining(RESOURCE) as unknown as Record<string, unknown>,
    dropped_attributes_count: 0,
    received_at_ms: expect.any(Number) as unknown as number,
  };
  return [
    {
      ...common,
      span_id: ids.chat,
      parent_span_id: ids.root,
      name: 'chat gpt-4o',
      span_kind: 3,
      start_time_unix_nano: nanos(1),
      end_time_unix_nano: nanos(2),
      status: { code: 0 },
      attributes: { 'gen_ai.response.finish_reasons': ['tool_call'] },
      events: [],
      genai: {
        family: 'otel_genai',
        operation: 'chat',
        input_messages: [
          { role: 'system', content: 'You are a weather bot' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        output_messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }],
        request_model: 'gpt-4o',
        provider: 'openai',
        usage: { input_tokens: 52, output_tokens: 9, total_tokens: 61 },
        agent_version: '2.1.0',
      },
    },
    {
      ...common,
      span_id: ids.tool,
      parent_span_id: ids.root,
      name: 'execute_tool get_weather',
      span_kind: 1,
      start_time_unix_nano: nanos(2),
      end_time_unix_nano: nanos(3),
      status: { code: 2, message: 'weather API timed out' },
      attributes: {},
      events: [{ name: 'exception', time_unix_nano: nanos(3), attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'weather API timed out' } }],
      genai: {
        family: 'otel_genai',
        operation: 'execute_tool',
        tool_execution: { name: 'get_weather', call_id: 'call_1', arguments: '{"city":"Paris"}', error: 'weather API timed out' },
        agent_version: '2.1.0',
      },
    },
    {
      ...common,
      span_id: ids.root,
      name: 'invoke_agent Weather',
      span_kind: 1,
      start_time_unix_nano: nanos(0),
      end_time_unix_nano: nanos(4),
      status: { code: 0 },
      attributes: {},
      events: [],
      genai: { family: 'otel_genai', operation: 'invoke_agent', agent_name: 'Weather', agent_version: '2.1.0', conversation_id: 'conv_42' },
    },
  ];
}

function envelopesFor(traceId: string): SpanEnvelope[] {
  return producer.sent.filter((s) => s.message.key === traceId).map((s) => SpanEnvelopeSchema.parse(JSON.parse(s.message.value)));
}

const exporters: Array<[string, () => SpanExporter]> = [
  ['OTLP/HTTP protobuf', () => new ProtoExporter({ url: `${collector.httpAddress()}/v1/traces` })],
  ['OTLP/HTTP protobuf, gzip', () => new ProtoExporter({ url: `${collector.httpAddress()}/v1/traces`, compression: 'gzip' as never })],
  ['OTLP/HTTP JSON', () => new JsonExporter({ url: `${collector.httpAddress()}/v1/traces` })],
  ['OTLP/gRPC', () => new GrpcExporter({ url: `http://${collector.grpcAddress()}` })],
];

describe('real OTel SDK exporters → collector', () => {
  it.each(exporters)('%s: exact envelopes for an agent run', async (_name, makeExporter) => {
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes(RESOURCE), spanProcessors: [new SimpleSpanProcessor(makeExporter())] });
    const ids = emitRun(provider.getTracer('weather-agent-tracer', '1.0.0'));
    await provider.forceFlush();
    const envs = await waitFor(() => (envelopesFor(ids.traceId).length === 3 ? envelopesFor(ids.traceId) : undefined), { timeoutMs: 10_000, description: '3 envelopes' });
    // SimpleSpanProcessor exports each span in its own request as it ends; requests may arrive in
    // any order, so envelopes are compared by span id.
    const bySpan = (list: SpanEnvelope[]) => [...list].sort((a, b) => ((a.kind === 'span' ? a.span_id : '') < (b.kind === 'span' ? b.span_id : '') ? -1 : 1));
    expect(bySpan(envs)).toEqual(bySpan(expected(ids, 'weather-agent-tracer') as SpanEnvelope[]));
    await provider.shutdown();
  });

  it('OTLP/HTTP protobuf logs: legacy GenAI message events become log envelopes', async () => {
    const loggerProvider = new LoggerProvider({
      resource: resourceFromAttributes(RESOURCE),
      processors: [new SimpleLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${collector.httpAddress()}/v1/logs` }) })],
    });
    const tracerProvider = new BasicTracerProvider();
    const span = tracerProvider.getTracer('t').startSpan('chat gpt-4o');
    const ctx = trace.setSpan(context.active(), span);
    const logger = loggerProvider.getLogger('openai-instrumentation');
    logger.emit({ eventName: 'gen_ai.user.message', body: { content: 'Weather in Paris?' }, attributes: { 'gen_ai.system': 'openai' }, context: ctx });
    logger.emit({
      eventName: 'gen_ai.choice',
      body: { index: 0, finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } },
      attributes: { 'gen_ai.system': 'openai' },
      context: ctx,
    });
    await loggerProvider.forceFlush();
    const traceId = span.spanContext().traceId;
    const envs = await waitFor(() => (envelopesFor(traceId).length === 2 ? envelopesFor(traceId) : undefined), { timeoutMs: 10_000, description: '2 log envelopes' });
    expect(envs.map((e) => (e.kind === 'log' ? [e.event_name, e.span_id, e.is_output, e.message, e.attributes] : null))).toEqual([
      ['gen_ai.user.message', span.spanContext().spanId, false, { role: 'user', content: 'Weather in Paris?' }, { 'gen_ai.system': 'openai' }],
      [
        'gen_ai.choice',
        span.spanContext().spanId,
        true,
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { 'gen_ai.system': 'openai' },
      ],
    ]);
    span.end();
    await loggerProvider.shutdown();
  });
});
