import { describe, expect, it } from 'vitest';
import type { ReceivedScope, Unit, UnitReceived } from '../../contracts/schemas/index.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { diagnoseUnit } from './diagnose-unit.ts';

// The scopes below are those of the recorded captures (test/fixtures/otlp/): names and versions as
// the libraries emit them, counts as the assembler tallies the capture (see
// test/integration/assembler/fixture-diagnostics.test.ts for the same through the real path).

function scope(name: string, version: string | null, over: Partial<ReceivedScope> = {}): ReceivedScope {
  return { name, version, family: 'otel_genai', spans: 2, span_names: ['chat mock-accurate'], logs: 0, model_calls: 2, model_calls_with_content: 0, tool_executions: 0, tool_executions_with_result: 0, ...over };
}
const DRIVER = scope('fixture-driver', null, { family: null, spans: 1, span_names: ['weather-agent'], model_calls: 0 });

/** A unit built with content capture off: model calls, no message text (a library may still send empty turns). */
function silentUnit(scopes: ReceivedScope[], over: Partial<Unit> = {}): Unit {
  const received: UnitReceived = { root: 'span', root_name: 'weather-agent', logs: scopes.reduce((n, s) => n + s.logs, 0), scopes: [...scopes, DRIVER] };
  return createTestUnit(1, { model_input: [], model_output: null, message_history: [{ role: 'user', content: '' }], llm_calls: 2, span_count: 3, received, ...over });
}

const codes = (u: Unit): string[] => diagnoseUnit(u).map((d) => d.code);

describe('diagnoseUnit: content capture off, per library', () => {
  it('opentelemetry-instrumentation-openai-v2 in the latest conventions given the old value true: names SPAN_ONLY', () => {
    expect(diagnoseUnit(silentUnit([scope('opentelemetry.util.genai.handler', '1.1b0')]))).toEqual([
      {
        code: 'content_not_captured',
        message:
          '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from an OpenTelemetry GenAI instrumentation for Python in the latest conventions (opentelemetry-util-genai; opentelemetry-instrumentation-openai-v2 is one), instrumentation scope opentelemetry.util.genai.handler 1.1b0.',
        fix: 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.',
        scope: 'opentelemetry.util.genai.handler 1.1b0',
      },
    ]);
  });

  it('opentelemetry-instrumentation-openai-v2 in its default conventions: names true and the logs exporter; no logs at all is a second finding', () => {
    const withLogs = diagnoseUnit(silentUnit([scope('opentelemetry.instrumentation.openai_v2', null, { logs: 16 })]));
    expect(withLogs.map((d) => [d.code, d.message, d.fix])).toEqual([
      [
        'content_not_captured',
        '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from opentelemetry-instrumentation-openai-v2 (Python), instrumentation scope opentelemetry.instrumentation.openai_v2.',
        'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and export logs as well as traces: this version sends the messages as log records, to /v1/logs. (With OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, newer versions take SPAN_ONLY and put them on the span.)',
      ],
    ]);
    const noLogs = diagnoseUnit(silentUnit([scope('opentelemetry.instrumentation.openai_v2', null)]));
    expect(noLogs.map((d) => [d.code, d.message, d.fix])[1]).toEqual([
      'logs_not_received',
      'opentelemetry-instrumentation-openai-v2 (Python) sends the messages as log records, and none arrived with this trace.',
      "Export logs as well as traces: with opentelemetry-instrument set OTEL_LOGS_EXPORTER=otlp; in code, set a LoggerProvider with an OTLPLogExporter pointed at this collector's /v1/logs.",
    ]);
  });

  it('@opentelemetry/instrumentation-openai (Node.js): captureMessageContent and a logs exporter', () => {
    const found = diagnoseUnit(silentUnit([scope('@opentelemetry/instrumentation-openai', '0.21.0')]));
    expect(found.map((d) => [d.code, d.fix])).toEqual([
      [
        'content_not_captured',
        'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (or pass `captureMessageContent: true` to `new OpenAIInstrumentation()`), and export logs as well as traces: this instrumentation sends the messages as log records, to /v1/logs.',
      ],
      ['logs_not_received', "Register a LoggerProvider with an OTLP log exporter (@opentelemetry/exporter-logs-otlp-proto) pointed at this collector's /v1/logs, beside the trace exporter."],
    ]);
    expect(found[0].message).toBe(
      '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from @opentelemetry/instrumentation-openai (Node.js), instrumentation scope @opentelemetry/instrumentation-openai 0.21.0.',
    );
  });

  it('OpenLLMetry (Python and Node.js), OpenInference, the AI SDK, OpenLIT, Pydantic AI, Google ADK: each its own switch', () => {
    const fixOf = (s: ReceivedScope): string => diagnoseUnit(silentUnit([s]))[0].fix;
    expect(fixOf(scope('opentelemetry.instrumentation.openai.v1', '0.62.4'))).toBe('Content is on by default: unset TRACELOOP_TRACE_CONTENT or set it to true.');
    expect(fixOf(scope('@traceloop/instrumentation-openai', '0.27.0'))).toBe(
      'Content is on by default: unset TRACELOOP_TRACE_CONTENT or set it to true. Do not pass `traceContent: false` to the instrumentation or to Traceloop.initialize.',
    );
    const openinference =
      "Content is on by default: unset OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_OUTPUTS, OPENINFERENCE_HIDE_INPUT_MESSAGES and OPENINFERENCE_HIDE_OUTPUT_MESSAGES (or set them to false), and hide nothing in the instrumentor's TraceConfig.";
    expect(fixOf(scope('openinference.instrumentation.openai', '0.1.66', { family: 'openinference' }))).toBe(openinference);
    expect(fixOf(scope('@arizeai/openinference-instrumentation-langchain', '4.1.1', { family: 'openinference' }))).toBe(openinference);
    expect(fixOf(scope('ai', null, { family: 'vercel_ai' }))).toBe(
      'Pass `experimental_telemetry: { isEnabled: true, recordInputs: true, recordOutputs: true }` to each call (the option is `telemetry` in AI SDK 7). Both record options default to true: something set them to false.',
    );
    expect(fixOf(scope('openlit.instrumentation.openai', null))).toBe('Pass capture_message_content=True to openlit.init().');
    expect(fixOf(scope('pydantic-ai', '2.68.0'))).toBe('Instrument with InstrumentationSettings(include_content=True), the default: something passed include_content=False.');
    expect(fixOf(scope('gcp.vertex.agent', '2.13.0'))).toBe("Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in the agent's environment.");
    // The two OpenAI Agents SDK instrumentations share a scope name; only Traceloop's carries a version.
    expect(fixOf(scope('opentelemetry.instrumentation.openai_agents', '0.62.4'))).toBe('Content is on by default: unset TRACELOOP_TRACE_CONTENT or set it to true.');
    expect(fixOf(scope('opentelemetry.instrumentation.openai_agents', null))).toMatch(/^Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY .* It also needs OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental\.$/);
  });

  it('a scope it does not know: named as it came, the fix from its convention family', () => {
    const [d] = diagnoseUnit(silentUnit([scope('my.company.llm', '3.1', { family: 'openinference' })]));
    expect(d.message).toBe('2 model calls carried no message text, so the checks that read the dialog cannot run. They came from instrumentation scope my.company.llm 3.1.');
    expect(d.fix).toMatch(/^Content is on by default: unset OPENINFERENCE_HIDE_INPUTS/);
    const [generic] = diagnoseUnit(silentUnit([scope('my.company.llm', null)]));
    expect(generic.fix).toBe(
      "Turn on the instrumentation's content capture. OpenTelemetry GenAI instrumentations read OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: SPAN_ONLY in current Python versions, true in older ones and in Node.js (where the messages travel as log records, to /v1/logs).",
    );
  });

  it('a unit stored before `received` existed: the count and the generic fix, saying why no library is named', () => {
    const [d] = diagnoseUnit(silentUnit([], { received: undefined, llm_calls: 3 }));
    expect([d.code, d.message, d.scope]).toEqual(['content_not_captured', '3 model calls carried no message text, so the checks that read the dialog cannot run.', null]);
    expect(d.fix).toMatch(/\(This unit was stored before tracecheck recorded which instrumentation sent it; newer units name it\.\)$/);
  });

  it('spans with no model call at all: says so and points at the recipes', () => {
    expect(diagnoseUnit(silentUnit([], { llm_calls: 0 }))).toEqual([
      {
        code: 'no_model_calls',
        message: 'None of the 3 spans is a model call with GenAI attributes (scopes: fixture-driver).',
        fix: 'Instrument the model client as well as the agent, e.g. with opentelemetry-instrumentation-openai-v2 (Python) or @opentelemetry/instrumentation-openai (Node.js): docs/sending-traces.md has a recipe per library.',
        scope: null,
      },
    ]);
  });
});

describe('diagnoseUnit: other missing parts', () => {
  it('nothing for a unit with its dialog, its results and its root', () => {
    expect(diagnoseUnit(createTestUnit(1, { received: { root: 'span', root_name: 'run', logs: 0, scopes: [scope('pydantic-ai', '2.68.0', { model_calls_with_content: 2 })] } }))).toEqual([]);
  });

  it('tool calls without a result: how many, which (three at most), where a result comes from', () => {
    const call = (i: number, result: string | null, error: string | null = null) => ({ id: `call_${i}`, name: `tool${i}`, arguments: '{}', result, error });
    const [d] = diagnoseUnit(createTestUnit(1, { tool_calls: [call(1, null), call(2, 'ok'), call(3, null, 'boom'), call(4, null), call(5, null), call(6, null)] }));
    expect([d.code, d.message]).toEqual(['tool_result_missing', '4 of 6 tool calls have no result: tool1 (call_1), tool4 (call_4), tool5 (call_5), and 1 more.']);
    expect(d.fix).toBe(
      "A result reaches the unit as a tool message in the next model call's input, or on the tool's own span (gen_ai.tool.call.result on an execute_tool span, output.value on an OpenInference TOOL span, ai.toolCall.result on the AI SDK's ai.toolCall). If the run ended right after the call, the agent never sent the model a result.",
    );
    // Without any text the missing results are the missing content: one finding, not two.
    expect(codes(silentUnit([scope('pydantic-ai', '2.68.0')], { tool_calls: [call(1, null)] }))).toEqual(['content_not_captured']);
  });

  it('a trace whose root span never came (an entry span whose caller exports elsewhere is fine)', () => {
    const received = (root: UnitReceived['root']): UnitReceived => ({ root, root_name: 'chat m', logs: 0, scopes: [scope('pydantic-ai', '2.68.0', { model_calls_with_content: 2 })] });
    const [d] = diagnoseUnit(createTestUnit(1, { span_count: 4, received: received('none') }));
    expect([d.code, d.message]).toEqual(['root_missing', "The trace's root span has not arrived: this unit was built from 4 spans whose parent is missing, so it may be part of a longer run."]);
    expect(d.fix).toMatch(/^Spans are exported when they end: make sure the outermost span of the run ends, and that the process flushes its exporter before it exits/);
    expect(codes(createTestUnit(1, { received: received('entry') }))).toEqual([]);
    expect(codes(createTestUnit(1, { kind: 'session', received: received('none') }))).toEqual([]);
  });
});

describe('diagnoseUnit: content by reference', () => {
  const refs = (n: number): NonNullable<Unit['content_refs']> => Array.from({ length: n }, (_, i) => ({ span_id: `s${i}`, input: `s3://b/${i}/in.json` }));

  it('says so instead of "not captured", listing three URIs and how many more', () => {
    const u = silentUnit([scope('opentelemetry.util.genai.handler', '1.1b0', { model_calls: 4 })], { content_refs: refs(4) });
    expect(diagnoseUnit(u).map((d) => [d.code, d.message])).toEqual([
      ['content_by_reference', '4 model calls recorded the messages as references to uploaded content, so the checks that read the dialog cannot run: s3://b/0/in.json, s3://b/1/in.json, s3://b/2/in.json, and 1 more.'],
    ]);
  });

  it('says nothing of references once text arrived beside them', () => {
    expect(codes(createTestUnit(1, { content_refs: refs(1) }))).toEqual([]);
  });
});
