import { randomBytes } from 'node:crypto';
import { encodeTraceRequest } from '../../services/collector/src/testing/otlp-builders.ts';

// OTLP/JSON export bodies of agent runs shaped as the load generator's looping run
// (test/helpers/agent-runs.ts: the agent run, four model calls asking for the same tool each
// followed by the tool call, and the final answer: 10 spans), with the attributes the agent tracer
// sets, but built as text: a backlog of hundreds of thousands of spans is sent in seconds instead of
// recorded through the SDK. No conversation id, so each run is one unit (no session units).

export const SPANS_PER_RUN = 10;

type Value = string | number | string[];

function attr(key: string, value: Value) {
  if (Array.isArray(value)) return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } };
  return { key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } };
}

const QUESTION = 'Book a table for two on December 1st.';
const TOOL = 'check_availability';
const ARGS = '{"date":"2026-12-01","people":2}';

function span(traceId: string, spanId: string, parent: string | undefined, name: string, kind: number, startNs: bigint, attributes: Record<string, Value>) {
  return {
    traceId,
    spanId,
    ...(parent === undefined ? {} : { parentSpanId: parent }),
    name,
    kind,
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(startNs + 2_000_000n),
    attributes: Object.entries(attributes).map(([k, v]) => attr(k, v)),
    status: {},
  };
}

/** The 10 spans of one looping run, the agent run (root) last, as an SDK exports a root that ends last. */
function runSpans(traceId: string, startNs: bigint) {
  const ids = Array.from({ length: SPANS_PER_RUN }, () => randomBytes(8).toString('hex'));
  const root = ids[0];
  const common = { 'gen_ai.agent.name': 'booker', 'gen_ai.agent.version': 'v1' };
  const history: Array<Record<string, unknown>> = [{ role: 'user', parts: [{ type: 'text', content: QUESTION }] }];
  const spans = [];
  let t = startNs + 1_000_000n;
  const chat = (id: string, output: Record<string, unknown>, finish: string) =>
    span(traceId, id, root, 'chat booking-model', 3, (t += 3_000_000n), {
      ...common,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'booking-model',
      'gen_ai.input.messages': JSON.stringify(history),
      'gen_ai.output.messages': JSON.stringify([{ ...output, finish_reason: finish }]),
      'gen_ai.response.finish_reasons': [finish],
      'gen_ai.usage.input_tokens': 40 + history.length * 12,
      'gen_ai.usage.output_tokens': 12,
    });
  for (let i = 0; i < 4; i++) {
    const callId = `call_${i}`;
    const call = { role: 'assistant', parts: [{ type: 'tool_call', id: callId, name: TOOL, arguments: JSON.parse(ARGS) as unknown }] };
    spans.push(chat(ids[1 + 2 * i], call, 'tool_call'));
    history.push(call);
    spans.push(
      span(traceId, ids[2 + 2 * i], root, `execute_tool ${TOOL}`, 1, (t += 3_000_000n), {
        ...common,
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': TOOL,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.call.arguments': ARGS,
        'gen_ai.tool.call.result': '{"available":false}',
      }),
    );
    history.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: callId, response: { available: false } }] });
  }
  spans.push(chat(ids[9], { role: 'assistant', parts: [{ type: 'text', content: 'I could not find a table.' }] }, 'stop'));
  spans.push(span(traceId, root, undefined, 'invoke_agent booker', 1, startNs, { ...common, 'gen_ai.operation.name': 'invoke_agent', 'tracecheck.scenario.input': QUESTION }));
  // The root spans the whole run.
  spans[spans.length - 1].endTimeUnixNano = String(t + 3_000_000n);
  return spans;
}

// One run's spans as JSON text with a placeholder trace id, built once: an export is then the
// template with fresh ids, so the test's senders spend little CPU per span (span ids repeat
// across runs, which is fine: they are unique within each trace).
const PLACEHOLDER = '0'.repeat(31) + 'f';
let template: string | undefined;
function runTemplate(): string {
  template ??= JSON.stringify(runSpans(PLACEHOLDER, BigInt(Date.now()) * 1_000_000n)).slice(1, -1);
  return template;
}

/** One export request (OTLP/JSON text) holding a whole run for each of `count` fresh trace ids, and the ids. */
export function genAiRunsExport(count: number): { ids: string[]; body: string } {
  const ids = Array.from({ length: count }, () => randomBytes(16).toString('hex'));
  const spans = ids.map((id) => runTemplate().replaceAll(PLACEHOLDER, id)).join(',');
  const resource = JSON.stringify({ attributes: [attr('service.name', 'booking-api'), attr('deployment.environment.name', 'prod')] });
  const body = `{"resourceSpans":[{"resource":${resource},"scopeSpans":[{"scope":{"name":"tracecheck-test-agent"},"spans":[${spans}]}]}]}`;
  return { ids, body };
}

// The same runs as OTLP/protobuf, what the SDK's exporter sends (cheaper for the collector to
// decode than JSON). A request's top-level `resourceSpans` field repeats, so a request of N runs is
// N one-run requests back to back, each with its trace id written over the placeholder's bytes.
let protoTemplate: { bytes: Buffer; at: number[] } | undefined;
function runProtoTemplate(): { bytes: Buffer; at: number[] } {
  if (protoTemplate) return protoTemplate;
  const json = JSON.parse(genAiRunsExport(1).body.replaceAll(/"traceId":"[0-9a-f]{32}"/g, `"traceId":"${PLACEHOLDER}"`)) as Record<string, unknown>;
  const bytes = Buffer.from(encodeTraceRequest(json));
  const needle = Buffer.from(PLACEHOLDER, 'hex');
  const at: number[] = [];
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + 1)) at.push(i);
  if (at.length !== SPANS_PER_RUN) throw new Error(`the placeholder trace id was found ${at.length} times`);
  protoTemplate = { bytes, at };
  return protoTemplate;
}

/** One OTLP/protobuf export request holding a whole run for each of `count` fresh trace ids, and the ids. */
export function genAiRunsProtobuf(count: number): { ids: string[]; body: Buffer } {
  const { bytes, at } = runProtoTemplate();
  const ids: string[] = [];
  const body = Buffer.allocUnsafe(bytes.length * count);
  for (let r = 0; r < count; r++) {
    const id = randomBytes(16);
    ids.push(id.toString('hex'));
    bytes.copy(body, r * bytes.length);
    for (const i of at) id.copy(body, r * bytes.length + i);
  }
  return { ids, body };
}
