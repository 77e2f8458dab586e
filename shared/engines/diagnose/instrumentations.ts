import type { GenAiFamily, ReceivedScope } from '../../contracts/schemas/index.ts';

// The instrumentation libraries we know by their scope (name, version), each with the setting that
// turns its content capture on. Keyed on what the libraries really emit (the recorded captures in
// test/fixtures/otlp/); a scope we do not know falls back on its convention family.

export interface Instrumentation {
  /** Who sent the spans, as a user would name the package. */
  library: string;
  /** The setting that turns message content on. */
  contentFix: string;
  /** Set when the library sends the messages as log records: how to export logs. */
  logsFix?: string;
}

const GENAI_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
const NODE_LOGS =
  "Register a LoggerProvider with an OTLP log exporter (@opentelemetry/exporter-logs-otlp-proto) pointed at this collector's /v1/logs, beside the trace exporter.";
const PYTHON_LOGS =
  "Export logs as well as traces: with opentelemetry-instrument set OTEL_LOGS_EXPORTER=otlp; in code, set a LoggerProvider with an OTLPLogExporter pointed at this collector's /v1/logs.";
const SPAN_ONLY = `Set ${GENAI_ENV}=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.`;
const TRACELOOP = 'Content is on by default: unset TRACELOOP_TRACE_CONTENT or set it to true.';
const OPENINFERENCE =
  "Content is on by default: unset OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_OUTPUTS, OPENINFERENCE_HIDE_INPUT_MESSAGES and OPENINFERENCE_HIDE_OUTPUT_MESSAGES (or set them to false), and hide nothing in the instrumentor's TraceConfig.";
const VERCEL =
  'Pass `experimental_telemetry: { isEnabled: true, recordInputs: true, recordOutputs: true }` to each call (the option is `telemetry` in AI SDK 7). Both record options default to true: something set them to false.';
const GENERIC = `Turn on the instrumentation's content capture. OpenTelemetry GenAI instrumentations read ${GENAI_ENV}: SPAN_ONLY in current Python versions, true in older ones and in Node.js (where the messages travel as log records, to /v1/logs).`;

const TRACELOOP_PYTHON_VERSION = /^0\.\d+\.\d+$/;

/** What we know of the library behind a scope; null for a scope we do not know. */
export function instrumentationOf(scope: Pick<ReceivedScope, 'name' | 'version'>): Instrumentation | null {
  const { name, version } = scope;
  if (name === '@opentelemetry/instrumentation-openai') {
    return {
      library: '@opentelemetry/instrumentation-openai (Node.js)',
      contentFix: `Set ${GENAI_ENV}=true (or pass \`captureMessageContent: true\` to \`new OpenAIInstrumentation()\`), and export logs as well as traces: this instrumentation sends the messages as log records, to /v1/logs.`,
      logsFix: NODE_LOGS,
    };
  }
  if (name === 'opentelemetry.instrumentation.openai_v2') {
    return {
      library: 'opentelemetry-instrumentation-openai-v2 (Python)',
      contentFix: `Set ${GENAI_ENV}=true, and export logs as well as traces: this version sends the messages as log records, to /v1/logs. (With OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, newer versions take SPAN_ONLY and put them on the span.)`,
      logsFix: PYTHON_LOGS,
    };
  }
  if (name.startsWith('opentelemetry.util.genai')) {
    return { library: 'an OpenTelemetry GenAI instrumentation for Python in the latest conventions (opentelemetry-util-genai; opentelemetry-instrumentation-openai-v2 is one)', contentFix: SPAN_ONLY };
  }
  if (name === 'opentelemetry.instrumentation.openai_agents' && !version) {
    return { library: 'opentelemetry-instrumentation-openai-agents-v2 (Python)', contentFix: `${SPAN_ONLY} It also needs OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental.` };
  }
  if (name.startsWith('opentelemetry.instrumentation.') && version && TRACELOOP_PYTHON_VERSION.test(version)) {
    return { library: 'OpenLLMetry (Traceloop) for Python', contentFix: TRACELOOP };
  }
  if (name.startsWith('@traceloop/')) {
    return { library: 'OpenLLMetry (Traceloop) for Node.js', contentFix: `${TRACELOOP} Do not pass \`traceContent: false\` to the instrumentation or to Traceloop.initialize.` };
  }
  if (name.startsWith('openinference.instrumentation.')) return { library: 'OpenInference (Python)', contentFix: OPENINFERENCE };
  if (name.startsWith('@arizeai/openinference-instrumentation-')) return { library: 'OpenInference (Node.js)', contentFix: OPENINFERENCE };
  if (name === 'ai') return { library: 'the Vercel AI SDK', contentFix: VERCEL };
  if (name === 'gen_ai') {
    return { library: "the Vercel AI SDK's OpenTelemetry integration (@ai-sdk/otel)", contentFix: 'Keep `recordInputs` and `recordOutputs` on in the call\'s `telemetry` settings (both default to true: something set them to false).' };
  }
  if (name.startsWith('openlit')) return { library: 'OpenLIT', contentFix: 'Pass capture_message_content=True to openlit.init().' };
  if (name === 'pydantic-ai') return { library: 'Pydantic AI', contentFix: 'Instrument with InstrumentationSettings(include_content=True), the default: something passed include_content=False.' };
  if (name === 'gcp.vertex.agent') return { library: 'Google ADK', contentFix: `Set ${GENAI_ENV}=true in the agent's environment.` };
  if (name.startsWith('langfuse')) {
    return { library: 'the Langfuse SDK', contentFix: 'Keep capture_input and capture_output on (@observe(capture_input=True, capture_output=True)), and check that no mask function empties them.' };
  }
  return null;
}

/** The fix for a scope we do not know, from the convention family its spans were read with. */
export function familyFix(family: GenAiFamily | null): string {
  if (family === 'openllmetry') return TRACELOOP;
  if (family === 'openinference') return OPENINFERENCE;
  if (family === 'vercel_ai') return VERCEL;
  return GENERIC;
}
