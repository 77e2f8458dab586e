// A small tool-using agent on the Vercel AI SDK, traced by the SDK's own telemetry through
// @ai-sdk/otel. The messages are span attributes, so traces alone carry the dialog (no logs
// exporter). The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_HEADERS) and
// posts to <endpoint>/v1/traces. Prints the trace id last.
import { createOpenAI } from '@ai-sdk/openai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';

const tracerProvider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'weather-agent' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
tracerProvider.register();

// OPENAI_BASE_URL and OPENAI_API_KEY are read by the provider. `.chat` uses Chat Completions.
const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
const MODEL = process.env.MODEL ?? 'gpt-4o-mini';

const getWeather = tool({
  description: 'The current weather in a city.',
  inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => (city === 'Paris' ? 'sunny, 22 C' : 'cloudy, 15 C'),
});

const tracer = trace.getTracer('weather-agent');
// One root span per agent run: the SDK's spans are its children, so the run is one trace.
const traceId = await tracer.startActiveSpan('invoke_agent weather-agent', async (span) => {
  try {
    const result = await generateText({
      model: openai.chat(MODEL),
      system: 'You are a helpful assistant. Use the tools.',
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(5),
      // The telemetry switch: without it the SDK records nothing.
      telemetry: { functionId: 'weather-agent', integrations: new OpenTelemetry() },
    });
    console.log(result.text);
    return span.spanContext().traceId;
  } finally {
    span.end();
  }
});
// Flush before exiting: a batch still in memory is lost.
await tracerProvider.shutdown();
console.log(traceId);
