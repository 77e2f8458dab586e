import { describe, expect, it } from 'vitest';
import { diagnoseUnit } from '../../../shared/engines/diagnose/index.ts';
import { fixtureUnits } from '../../helpers/fixture-units.ts';
import { listFixtures } from '../collector/fixture-expectations.ts';
import { readFileSync } from 'node:fs';
import { assembleTrace } from '../../../services/assembler/src/assemble-trace.ts';
import { decodeTraceRequestJson, traceRequestToMessages } from '../../../services/collector/src/index.ts';
import { SpanEnvelopeSchema, type SpanRecord, type Unit } from '../../../shared/contracts/schemas/index.ts';

// What the units of every real capture (test/fixtures/otlp/) are missing, through the collector's
// normalization and the assembler: nothing where the library captured content, and the exact
// setting where it did not (the *-no-content captures, recorded with content capture off).

const cases = [...new Set(listFixtures().map((f) => `${f.family}|${f.scenario.replace(/\.logs$/, '')}`))].map((k) => k.split('|') as [string, string]);
const NO_CONTENT = new Set(['python/openai-v2-no-content', 'python/openai-v2-latest-no-content', 'python/traceloop-openai-no-content']);

/** Tool calls whose result the library's export does not hold (see test/e2e/python-fixture-units.test.ts). */
const KNOWN_LOSSES: Record<string, string[]> = {
  'python/openai-agents-otel-v2|handoff': ['tool_result_missing', 'tool_result_missing'],
  'python/openlit|responses-stream': ['tool_result_missing'],
  'python/openlit|responses-two-turns': ['tool_result_missing', 'tool_result_missing'],
  // Recorded with the messages uploaded and only their URIs on the span (test/integration/collector/genai-split-units.test.ts).
  'genai-split|content-ref': ['content_by_reference'],
  // An agent calling MCP tools with no model call instrumented.
  'mcp|weather-tools': ['no_model_calls'],
};

/** A capture's units from its spans alone, as if its log records were never exported. */
function spansOnlyUnits(family: string, scenario: string): Unit[] {
  const [f] = listFixtures().filter((x) => x.family === family && x.scenario === scenario);
  const spans: SpanRecord[] = [];
  for (const m of traceRequestToMessages(decodeTraceRequestJson(readFileSync(f.jsonPath)), { maxAttributeBytes: 1 << 20, receivedAtMs: 0 }).messages) {
    const e = SpanEnvelopeSchema.parse(JSON.parse(m.value));
    if (e.kind === 'span') spans.push(e);
  }
  return [...new Set(spans.map((s) => s.trace_id))].map((traceId) => assembleTrace({ traceId, spans: spans.filter((s) => s.trace_id === traceId), logs: [] }, 0)).sort((a, b) => a.start_time_ms - b.start_time_ms);
}

describe('diagnostics of the recorded captures', () => {
  it('covers every capture, three of them with content capture off', () => {
    expect(cases.length).toBeGreaterThan(80);
    expect(new Set(cases.map(([family]) => family).filter((f) => NO_CONTENT.has(f)))).toEqual(NO_CONTENT);
  });

  it.each(cases.filter(([family]) => !NO_CONTENT.has(family)))('%s %s: content arrived, nothing is missing but what the library drops', (family, scenario) => {
    const codes = fixtureUnits(family, scenario, 'json').flatMap((u) => diagnoseUnit(u).map((d) => d.code));
    expect(codes).toEqual(KNOWN_LOSSES[`${family}|${scenario}`] ?? []);
  });

  it('opentelemetry-instrumentation-openai-v2, latest conventions, given `true`: SPAN_ONLY, on every unit of every scenario', () => {
    for (const [family, scenario] of cases.filter(([f]) => f === 'python/openai-v2-latest-no-content')) {
      for (const u of fixtureUnits(family, scenario, 'protobuf')) {
        expect(diagnoseUnit(u).map((d) => [d.code, d.scope, d.fix])).toEqual([
          [
            'content_not_captured',
            'opentelemetry.util.genai.handler 1.1b0',
            'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.',
          ],
        ]);
      }
    }
  });

  it('opentelemetry-instrumentation-openai-v2, default conventions, content off: the empty message records say content, not logs, is missing', () => {
    const [first] = fixtureUnits('python/openai-v2-no-content', 'tool-loop', 'protobuf');
    expect(first.received?.scopes[0]).toMatchObject({ name: 'opentelemetry.instrumentation.openai_v2', version: null, logs: 24, model_calls: 4, model_calls_with_content: 0 });
    expect(diagnoseUnit(first)).toEqual([
      {
        code: 'content_not_captured',
        message: '4 model calls carried no message text, so the checks that read the dialog cannot run. They came from opentelemetry-instrumentation-openai-v2 (Python), instrumentation scope opentelemetry.instrumentation.openai_v2.',
        fix: 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and export logs as well as traces: this version sends the messages as log records, to /v1/logs. (With OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, newer versions take SPAN_ONLY and put them on the span.)',
        scope: 'opentelemetry.instrumentation.openai_v2',
      },
    ]);
  });

  it('a capture whose log records never came (no logs exporter): the content setting and the logs exporter, both named', () => {
    for (const [family, scope] of [['python/openai-v2', 'opentelemetry.instrumentation.openai_v2'], ['otel-genai-openai', '@opentelemetry/instrumentation-openai 0.21.0']]) {
      const scenario = family === 'otel-genai-openai' ? 'weather-tool' : 'failing-tool';
      const [first] = spansOnlyUnits(family, scenario);
      expect(diagnoseUnit(first).map((d) => [d.code, d.scope])).toEqual([
        ['content_not_captured', scope],
        ['logs_not_received', scope],
      ]);
    }
  });

  it('OpenLLMetry for Python with TRACELOOP_TRACE_CONTENT=false: names it', () => {
    for (const scenario of ['two-turns', 'responses-two-turns']) {
      const [first] = fixtureUnits('python/traceloop-openai-no-content', scenario, 'json');
      expect(diagnoseUnit(first)).toEqual([
        {
          code: 'content_not_captured',
          message: '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from OpenLLMetry (Traceloop) for Python, instrumentation scope opentelemetry.instrumentation.openai.v1 0.62.4.',
          fix: 'Content is on by default: unset TRACELOOP_TRACE_CONTENT or set it to true.',
          scope: 'opentelemetry.instrumentation.openai.v1 0.62.4',
        },
      ]);
    }
  });
});
