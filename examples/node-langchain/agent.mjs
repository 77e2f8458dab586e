// A small tool-using agent on LangChain.js (ChatOpenAI with a bound tool), traced by OpenInference's
// LangChain instrumentation. The messages are span attributes, so traces alone carry the dialog (no
// logs exporter); OpenInference always records content. The exporter reads
// OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_HEADERS) and posts to <endpoint>/v1/traces.
// Prints the trace id last.
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { z } from 'zod';

const tracerProvider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'weather-agent' }),
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
});
tracerProvider.register();
// In an ES module the instrumentation cannot hook `import`: hand it LangChain's callback manager.
new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule);

const getWeather = tool(async ({ city }) => (city === 'Paris' ? 'sunny, 22 C' : 'cloudy, 15 C'), {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: z.object({ city: z.string() }),
});
// OPENAI_BASE_URL and OPENAI_API_KEY are read from the environment here.
const llm = new ChatOpenAI({
  model: process.env.MODEL ?? 'gpt-4o-mini',
  apiKey: process.env.OPENAI_API_KEY ?? 'unused',
  configuration: { baseURL: process.env.OPENAI_BASE_URL },
}).bindTools([getWeather]);

async function runAgent(question) {
  const messages = [new SystemMessage('You are a helpful assistant. Use the tools.'), new HumanMessage(question)];
  for (let turn = 0; turn < 5; turn++) {
    const reply = await llm.invoke(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content;
    // Invoked with the whole tool call, a tool answers with a ToolMessage that carries the call's id.
    for (const call of reply.tool_calls) messages.push(await getWeather.invoke({ ...call, type: 'tool_call' }));
  }
  throw new Error('no answer after 5 turns');
}

// One root span per agent run: LangChain's spans are its children, so the run is one trace.
const traceId = await trace.getTracer('weather-agent').startActiveSpan('invoke_agent weather-agent', async (span) => {
  try {
    console.log(await runAgent('What is the weather in Paris?'));
    return span.spanContext().traceId;
  } finally {
    span.end();
  }
});
// Flush before exiting: a batch still in memory is lost.
await tracerProvider.shutdown();
console.log(traceId);
