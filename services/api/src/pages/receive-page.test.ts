import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../../shared/adapters/store/index.ts';
import type { ReceivedScope, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createTestUnit } from '../../../../test/helpers/unit-factory.ts';
import { createApp } from '../create-app.ts';

// The unit page and "what we receive" over a store: a unit sent with content capture off names the
// setting at the top of its page and in the API; an empty project is greeted with the set-up steps.

const NOW = Date.UTC(2026, 10, 29, 12, 0);
const SPAN_ONLY_FIX = 'Set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT). This version ignores the value true that older versions took, and captures no content with it.';

function scope(name: string, version: string | null, over: Partial<ReceivedScope> = {}): ReceivedScope {
  return { name, version, family: 'otel_genai', spans: 2, span_names: ['chat gpt-4o'], logs: 0, model_calls: 2, model_calls_with_content: 0, tool_executions: 0, tool_executions_with_result: 0, ...over };
}

function silent(i: number, service: string, scopes: ReceivedScope[]): Unit {
  return createTestUnit(i, {
    unit_id: `silent-${i}`, trace_ids: [`silent-${i}`], service, model_input: [], model_output: null, message_history: [], llm_calls: 2, span_count: 3,
    start_time_ms: NOW - 60_000 + i, end_time_ms: NOW - 50_000 + i, assembled_at_ms: NOW,
    received: { root: 'span', root_name: 'weather <agent>', logs: 0, scopes },
  });
}

describe('what a unit is missing, on its page and in the API', () => {
  const log = createSilentLogger();
  const store = createDuckDbStore({ path: ':memory:', log });
  const app = createApp({ store, log, now: () => NOW });
  beforeAll(async () => {
    await store.start();
  });
  afterAll(() => store.shutdown());

  it('greets an empty project with the set-up steps', async () => {
    const res = await app.request('http://127.0.0.1:8080/receive');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Nothing has arrived in this project yet.');
    expect(html).toContain('<code>OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318</code>');
    expect(html).toContain('<code>docs/sending-traces.md</code>');
    expect(await (await app.request('/api/v1/ingest/recent')).json()).toEqual({ services: [], units_listed: 0 });
  });

  it('names the setting at the top of the unit page and in GET /api/v1/units/{id}; escapes what the trace sent', async () => {
    const hostile = scope('<script>x</script>', '1 & 2');
    await store.writeUnits([silent(1, 'weather-svc', [scope('opentelemetry.util.genai.handler', '1.1b0')]), silent(2, 'evil<svc>', [hostile])]);
    const api = (await (await app.request('/api/v1/units/silent-1')).json()) as { unit: { diagnostics: unknown[] } };
    expect(api.unit.diagnostics).toEqual([
      {
        code: 'content_not_captured',
        message:
          '2 model calls carried no message text, so the checks that read the dialog cannot run. They came from an OpenTelemetry GenAI instrumentation for Python in the latest conventions (opentelemetry-util-genai; opentelemetry-instrumentation-openai-v2 is one), instrumentation scope opentelemetry.util.genai.handler 1.1b0.',
        fix: SPAN_ONLY_FIX,
        scope: 'opentelemetry.util.genai.handler 1.1b0',
      },
    ]);
    const page = await (await app.request('/units/silent-1')).text();
    expect(page).toContain('<div class="card firing-list" data-diagnostics><strong>What this unit is missing</strong>');
    expect(page).toContain(`<span data-fix>${SPAN_ONLY_FIX}</span>`);
    expect(page).toContain('This unit carries no messages. What is missing, and the setting that fixes it, is at the top of the page.');
    expect(page.indexOf('data-diagnostics')).toBeLessThan(page.indexOf('data-transcript'));
    const evil = await (await app.request('/units/silent-2')).text();
    expect(evil).not.toContain('<script>x</script>');
    expect(evil).toContain('instrumentation scope &lt;script&gt;x&lt;/script&gt; 1 &amp; 2.');
  });

  it('what we receive: per service its units, scopes with family and content, and the warnings with their fix', async () => {
    await store.writeUnits([
      createTestUnit(3, { unit_id: 'fine-3', trace_ids: ['fine-3'], service: 'weather-svc', llm_calls: 1, end_time_ms: NOW - 10_000, received: { root: 'span', root_name: 'run', logs: 0, scopes: [scope('opentelemetry.util.genai.handler', '1.1b0', { model_calls: 1, model_calls_with_content: 1 })] } }),
    ]);
    const recent = (await (await app.request('/api/v1/ingest/recent')).json()) as { services: Array<Record<string, unknown>> };
    expect(recent.services.map((s) => [s.service, s.content])).toEqual([
      ['weather-svc', 'some'],
      ['evil<svc>', 'none'],
    ]);
    expect(recent.services[0]).toMatchObject({
      scopes: [{ name: 'opentelemetry.util.genai.handler', version: '1.1b0', family: 'otel_genai', units: 2, spans: 4, model_calls: 3, model_calls_with_content: 1, logs: 0, span_names: ['chat gpt-4o'] }],
      warnings: [{ code: 'content_not_captured', scope: 'opentelemetry.util.genai.handler 1.1b0', fix: SPAN_ONLY_FIX, units: 1, example_unit: 'silent-1' }],
      units: [
        { unit_id: 'fine-3', root_name: 'run', content: true },
        { unit_id: 'silent-1', root_name: 'weather <agent>', content: false },
      ],
    });
    const html = await (await app.request('/receive')).text();
    expect(html).toContain('<div class="card" data-service="weather-svc">');
    expect(html).toContain('<span class="badge error">content: some units</span>');
    expect(html).toContain(`<span data-fix>${SPAN_ONLY_FIX}</span>`);
    expect(html).toContain('<td class="num" data-content>1 of 3</td>');
    expect(html).toContain('weather &lt;agent&gt;');
    expect(html).not.toContain('<script>x</script>');
    expect(html).toContain('<a href="/receive" class="active">Receiving</a>');
  });
});
