import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

// Agent traffic carrying secrets, for the redaction e2e test: one run sent by the OTel JS SDK
// (spans over OTLP/protobuf, a log record), one Python capture (pydantic-ai's tool loop) with the
// secrets planted in its prompt, tool arguments and tool results.

export const SECRETS = {
  email: 'jane.doe@example.com',
  card: '4111 1111 1111 1111',
  phone: '+1 415 555 2671',
  openaiKey: 'sk-proj-Zq8vR2mXc4LpT7wNb3Kd9FhJ',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJqYW5lIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg',
} as const;

/** What must be found nowhere: each secret, and the digits of the card and phone written without spaces. */
export const FORBIDDEN: readonly string[] = [...Object.values(SECRETS), '4111111111111111', '14155552671'];

/** A card-like number failing Luhn: not a card, kept as it is. */
export const NOT_A_CARD = '4111 1111 1111 1112';

const PROMPT = `I am ${SECRETS.email}, phone ${SECRETS.phone}. Pay with ${SECRETS.card} (not the old ${NOT_A_CARD}). My key is ${SECRETS.openaiKey}.`;
const TOOL_RESULT = JSON.stringify({ status: 'processing', customer: SECRETS.email, session_token: SECRETS.jwt, card: SECRETS.card });
const TOOL_ARGS = JSON.stringify({ customer: SECRETS.email });

const T0 = Math.floor(Date.now() / 1000) - 60;
const at = (s: number): [number, number] => [T0 + s, 0];

/** One agent run by the OTel JS SDK: the same lookup with the same email three times (a loop). Returns its trace id. */
export async function sendSdkRun(collectorUrl: string): Promise<string> {
  const resource = resourceFromAttributes({ 'service.name': 'support-agent', 'service.version': '1.0.0' });
  const exporter = new OTLPTraceExporter({ url: `${collectorUrl}/v1/traces` });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('redaction-test', '1.0.0');
  const root = tracer.startSpan('invoke_agent Support', { startTime: at(0), attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Support' } });
  const parent = trace.setSpan(context.active(), root);
  const traceId = root.spanContext().traceId;
  let t = 1;
  const messages: unknown[] = [{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }];
  for (let i = 0; i < 3; i++) {
    const callId = `call_${i}`;
    const chat = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, startTime: at(t), attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.input.messages': JSON.stringify(messages),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: 'lookup_order', arguments: { customer: SECRETS.email } }], finish_reason: 'tool_call' }]),
    } }, parent);
    chat.end(at(t + 1));
    const tool = tracer.startSpan('execute_tool lookup_order', { startTime: at(t + 1), attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.call.arguments': TOOL_ARGS,
      'gen_ai.tool.call.result': TOOL_RESULT,
    } }, parent);
    tool.end(at(t + 2));
    messages.push({ role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: 'lookup_order', arguments: { customer: SECRETS.email } }] });
    messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: callId, response: TOOL_RESULT }] });
    t += 2;
  }
  const answer = tracer.startSpan('chat gpt-4o', { kind: SpanKind.CLIENT, startTime: at(t), attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.input.messages': JSON.stringify(messages),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `Your order is processing; I will write to ${SECRETS.email}.` }], finish_reason: 'stop' }]),
  } }, parent);
  answer.end(at(t + 1));
  root.end(at(t + 2));
  await provider.forceFlush();
  await provider.shutdown();

  const logs = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${collectorUrl}/v1/logs` }) })] });
  const spanContext = root.spanContext();
  logs.getLogger('redaction-test').emit({
    eventName: 'gen_ai.user.message',
    body: { content: PROMPT, card: SECRETS.card },
    attributes: { 'gen_ai.system': 'openai', note: `token ${SECRETS.jwt}` },
    timestamp: at(1),
    context: trace.setSpanContext(context.active(), spanContext),
  });
  await logs.forceFlush();
  await logs.shutdown();
  return traceId;
}

function plant(text: string): string {
  return text
    .replaceAll('Has order 42 shipped yet?', PROMPT)
    .replaceAll('{"order_id":"42","status":"processing"}', TOOL_RESULT)
    .replaceAll('\\"42\\"', `\\"${SECRETS.email}\\"`)
    .replaceAll('"42"', `"${SECRETS.email}"`)
    .replaceAll('Order 42', `The order of ${SECRETS.email}`);
}

/** pydantic-ai's tool-loop capture (Python OTel SDK), its prompt, tool arguments and results carrying the secrets, under a fresh trace id. */
export async function sendPythonCapture(collectorUrl: string, fixturesDir: string): Promise<string> {
  const body = JSON.parse(readFileSync(join(fixturesDir, 'otlp/python/pydantic-ai/tool-loop.otlp.json'), 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> };
  const traceId = randomBytes(16).toString('hex');
  for (const rs of body.resourceSpans) {
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        span.traceId = traceId;
        for (const a of span.attributes as Array<{ value: { stringValue?: string } }>) if (a.value.stringValue !== undefined) a.value.stringValue = plant(a.value.stringValue);
      }
    }
  }
  const text = JSON.stringify(body);
  if (!text.includes(SECRETS.email) || !text.includes(SECRETS.jwt)) throw new Error('the capture changed: the secrets were not planted');
  const res = await fetch(`${collectorUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  if (res.status !== 200) throw new Error(`collector answered ${res.status}: ${await res.text()}`);
  return traceId;
}
