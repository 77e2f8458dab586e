// A small tool-using agent on the OpenAI SDK, traced by @opentelemetry/instrumentation-openai.
// The instrumentation writes the messages as OTLP log records (not on the spans), so the agent
// exports logs as well as traces. Both exporters read OTEL_EXPORTER_OTLP_ENDPOINT (and
// OTEL_EXPORTER_OTLP_HEADERS) and post to <endpoint>/v1/traces and <endpoint>/v1/logs.
// Run with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true. Prints the trace id last.

// 1. Telemetry first: the instrumentation patches `openai` when it is required, so set it up
//    before the first require('openai').
const { trace } = require('@opentelemetry/api');
const { logs } = require('@opentelemetry/api-logs');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-proto');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { BatchLogRecordProcessor, LoggerProvider } = require('@opentelemetry/sdk-logs');
const { BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');

const resource = resourceFromAttributes({ 'service.name': 'weather-agent' });
const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
tracerProvider.register();
const loggerProvider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })] });
logs.setGlobalLoggerProvider(loggerProvider);
registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });

// 2. The agent. OPENAI_BASE_URL and OPENAI_API_KEY are read by the client.
const { OpenAI } = require('openai');

const MODEL = process.env.MODEL ?? 'gpt-4o-mini';
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The current weather in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

function getWeather({ city }) {
  return city === 'Paris' ? 'sunny, 22 C' : 'cloudy, 15 C';
}

async function runAgent(client, question) {
  const messages = [
    { role: 'system', content: 'You are a helpful assistant. Use the tools.' },
    { role: 'user', content: question },
  ];
  for (let turn = 0; turn < 5; turn++) {
    const completion = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      const result = getWeather(JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
  throw new Error('no answer after 5 turns');
}

async function main() {
  const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? 'unused' });
  const tracer = trace.getTracer('weather-agent');
  // One root span per agent run: every model call below is its child, so the run is one trace.
  const traceId = await tracer.startActiveSpan('invoke_agent weather-agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'weather-agent' } }, async (span) => {
    try {
      console.log(await runAgent(client, 'What is the weather in Paris?'));
      return span.spanContext().traceId;
    } finally {
      span.end();
    }
  });
  // Flush before exiting: a batch still in memory is lost.
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
  console.log(traceId);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
