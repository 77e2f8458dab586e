import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../collector/fixture-expectations.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';

// The front door's promise (issue 34): a unit sent with content capture off names the setting
// that turns it on, in the API and on its page, and "what we receive" says the same per service.
// The exports are real ones (test/fixtures/otlp/python/*-no-content, recorded by
// scripts/fixtures/python/capture.py), sent as the library sent them (protobuf) through the
// collector, on both deployments: in-process bus + DuckDB, and Kafka + ClickHouse.

const LATEST = 'python/openai-v2-latest-no-content/two-turns';
const LEGACY = 'python/openai-v2-no-content/two-turns';

const SPAN_ONLY_FIX = 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.';
const LATEST_MESSAGE =
  '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from an OpenTelemetry GenAI instrumentation for Python in the latest conventions (opentelemetry-util-genai; opentelemetry-instrumentation-openai-v2 is one), instrumentation scope opentelemetry.util.genai.handler 1.1b0.';
const LEGACY_FIX =
  'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and export logs as well as traces: this version sends the messages as log records, to /v1/logs. (With OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, newer versions take SPAN_ONLY and put them on the span.)';

/** The trace ids of a capture, in the order of their first spans. */
function traceIdsOf(fixture: string): string[] {
  const doc = JSON.parse(readFileSync(join(FIXTURES_DIR, `${fixture}.otlp.json`), 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string; startTimeUnixNano: string }> }> }> };
  const spans = doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  return [...new Set(spans.map((s) => s.traceId))];
}

async function post(collectorUrl: string, signal: 'traces' | 'logs', path: string): Promise<void> {
  const res = await fetch(`${collectorUrl}/v1/${signal}`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: readFileSync(path) });
  expect(res.status).toBe(200);
}

interface UnitAnswer {
  unit: { received?: unknown; diagnostics: Array<{ code: string; message: string; fix: string; scope: string | null }> };
}

async function unitOf(apiUrl: string, traceId: string): Promise<UnitAnswer> {
  return waitFor(
    async () => {
      const res = await fetch(`${apiUrl}/api/v1/units/${traceId}`);
      return res.status === 200 ? ((await res.json()) as UnitAnswer) : null;
    },
    { timeoutMs: 60_000, description: `unit ${traceId} in the API` },
  );
}

const deployments: Array<[string, () => Record<string, string>]> = [
  ['in-process bus + DuckDB', () => ({})],
  ['Kafka + ClickHouse', () => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('receive_diag') })],
];

describe.each(deployments)('a unit sent with content capture off names the setting (%s)', (_name, env) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPipeline({ ...env(), TRACECHECK_CHECKS: 'task_completed' });
    const collector = h.pipeline.collectorUrl();
    // The log records first: a trace's unit is built once its root span ends (plus a grace), and
    // records that come later make a second revision.
    await post(collector, 'logs', join(FIXTURES_DIR, `${LEGACY}.logs.otlp.pb`));
    await post(collector, 'traces', join(FIXTURES_DIR, `${LEGACY}.otlp.pb`));
    await post(collector, 'traces', join(FIXTURES_DIR, `${LATEST}.otlp.pb`));
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('the API and the unit page name SPAN_ONLY for the latest conventions given `true`', async () => {
    const [first] = traceIdsOf(LATEST);
    const answer = await unitOf(h.pipeline.apiUrl(), first);
    expect(answer.unit.diagnostics).toEqual([{ code: 'content_not_captured', message: LATEST_MESSAGE, fix: SPAN_ONLY_FIX, scope: 'opentelemetry.util.genai.handler 1.1b0' }]);
    const page = await (await fetch(`${h.pipeline.apiUrl()}/units/${first}`)).text();
    expect(page).toContain('What this unit is missing');
    expect(page).toContain(`<span data-fix>${SPAN_ONLY_FIX}</span>`);
  });

  it('the default conventions with content off: `true` and the logs exporter, though empty message records arrived', async () => {
    const [first] = traceIdsOf(LEGACY);
    const answer = await unitOf(h.pipeline.apiUrl(), first);
    expect(answer.unit.diagnostics.map((d) => [d.code, d.fix])).toEqual([['content_not_captured', LEGACY_FIX]]);
  });

  it('what we receive: the service, its scopes with family and content, the warning with the fix; the page the same', async () => {
    const api = h.pipeline.apiUrl();
    for (const traceId of [...traceIdsOf(LATEST), ...traceIdsOf(LEGACY)]) await unitOf(api, traceId);
    const recent = (await (await fetch(`${api}/api/v1/ingest/recent`)).json()) as {
      services: Array<{ service: string | null; content: string; scopes: Array<{ name: string; family: string | null; model_calls: number; model_calls_with_content: number }>; warnings: Array<{ code: string; scope: string | null; fix: string; units: number }> }>;
    };
    // Each capture names its own service (fixture-<family>), newest run first: the latest-conventions capture was recorded after the other.
    expect(recent.services.map((s) => [s.service, s.content])).toEqual([
      ['fixture-openai-v2-latest-no-content', 'none'],
      ['fixture-openai-v2-no-content', 'none'],
    ]);
    const [latest, legacy] = recent.services;
    expect(latest.scopes.map((s) => [s.name, s.family, s.model_calls, s.model_calls_with_content])).toEqual([
      ['opentelemetry.util.genai.handler', 'otel_genai', 4, 0],
      ['fixture-driver', null, 0, 0],
    ]);
    expect(legacy.scopes.map((s) => [s.name, s.family, s.model_calls, s.model_calls_with_content])).toEqual([
      ['opentelemetry.instrumentation.openai_v2', 'otel_genai', 4, 0],
      ['fixture-driver', null, 0, 0],
    ]);
    expect(latest.warnings.map((w) => [w.code, w.scope, w.units, w.fix])).toEqual([['content_not_captured', 'opentelemetry.util.genai.handler 1.1b0', 2, SPAN_ONLY_FIX]]);
    expect(legacy.warnings.map((w) => [w.code, w.scope, w.units, w.fix])).toEqual([['content_not_captured', 'opentelemetry.instrumentation.openai_v2', 2, LEGACY_FIX]]);
    const page = await (await fetch(`${api}/receive`)).text();
    expect(page).toContain(`<span data-fix>${SPAN_ONLY_FIX}</span>`);
    expect(page).toContain('<span class="badge fail">content: none</span>');
  });
});
