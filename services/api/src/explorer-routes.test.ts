import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';
import { openApiChecker } from './testing/openapi-check.ts';

// GET /api/v1/units and /api/v1/sessions (issue 34) and the /units and /sessions pages over a
// real in-memory DuckDB store: filters, search, sort, cursors, hostile values and 400s.

const NOW = Date.UTC(2026, 10, 29, 12, 0);
const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const app = createApp({ store, log, now: () => NOW });

function unit(i: number, over: Partial<Unit> = {}): Unit {
  return {
    schema_version: 1, unit_id: `t${String(i).padStart(3, '0')}`, kind: 'trace', trace_ids: ['0af7651916cd43dd8448eb211c80319c'], agent_name: i % 2 ? 'triage' : 'billing', agent_version: 'v1', service: 'svc', environment: 'prod',
    conversation_id: null, model: 'gpt-4o', model_input: [], model_output: `answer ${i}`,
    message_history: [{ role: 'user', content: i === 7 ? 'Where is my <b>parcel</b>?' : `question number ${i}` }],
    tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 10, output_tokens: i, total_tokens: 10 + i }, errors: [], truncated: false, span_count: 2,
    start_time_ms: NOW - 60_000 * (i + 1), end_time_ms: NOW - 60_000 * i, assembled_at_ms: NOW, project: 'default',
    llm_calls: 1, cost_usd: i / 1000, duration_ms: 1000 * (i % 4), tool_call_count: 0,
    ...over,
  };
}

const score = (u: Unit, passed: boolean): Score => ({
  schema_version: 1, unit_id: u.unit_id, unit_kind: u.kind, project: 'default', check: 'grounded', check_version: '1', status: 'ok', value: passed ? 1 : 0, passed, explanation: '', method: 'code', error: null,
  judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: u.agent_name, agent_version: u.agent_version, environment: u.environment, service: u.service, unit_end_time_ms: u.end_time_ms, created_at_ms: NOW, unit_revision: 1,
});

type Page = { units: Array<Record<string, unknown> & { unit_id: string; scores: unknown[] }>; count: number; next_cursor: string | null };
let checker: Awaited<ReturnType<typeof openApiChecker>>;

async function api(path: string, doc = '/api/v1/units'): Promise<Page> {
  const res = await app.request(path);
  const body = (await res.json()) as Page;
  expect(res.status, JSON.stringify(body)).toBe(200);
  checker.check('get', doc, 200, body);
  return body;
}
async function refused(path: string): Promise<string> {
  const res = await app.request(path);
  expect(res.status).toBe(400);
  return ((await res.json()) as { error: string }).error;
}
const ids = (p: Page): string[] => p.units.map((u) => u.unit_id);

beforeAll(async () => {
  await store.start();
  const units = Array.from({ length: 12 }, (_, i) => unit(i));
  await store.writeScoredUnits(units.map((u, i) => ({ unit: u, scores: [score(u, i % 3 !== 0)] })));
  await store.writeUnits([unit(20, { unit_id: 's-1', kind: 'session', conversation_id: 'conv-1', agent_name: 'triage' }), unit(21, { unit_id: 'other-1', project: 'other' })]);
  checker = await openApiChecker(app);
});
afterAll(async () => {
  await store.shutdown();
});

describe('GET /api/v1/units', () => {
  it('lists the project newest first with figures and score badges, and pages with next_cursor', async () => {
    const first = await api('/api/v1/units?limit=5');
    expect(ids(first)).toEqual(['t000', 't001', 't002', 't003', 't004']);
    expect(first.units[1]).toMatchObject({ agent_name: 'triage', cost_usd: 0.001, duration_ms: 1000, input_tokens: 10, output_tokens: 1, errored: false, end_time: new Date(NOW - 60_000).toISOString(), scores: [{ check: 'grounded', check_version: '1', status: 'ok', passed: true, value: 1 }] });
    const seen = [...ids(first)];
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const page = await api(`/api/v1/units?limit=5&cursor=${cursor}`);
      seen.push(...ids(page));
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(['t000', 't001', 't002', 't003', 't004', 't005', 't006', 't007', 't008', 't009', 't010', 't011', 's-1']);
  });

  it('filters, searches and sorts by the query string', async () => {
    expect(ids(await api('/api/v1/units?q=PARCEL'))).toEqual(['t007']);
    expect(ids(await api('/api/v1/units?q=question%20number%201'))).toEqual(['t001', 't010', 't011']);
    expect(ids(await api('/api/v1/units?check=grounded&verdict=fail&agent=billing'))).toEqual(['t000', 't006']);
    expect(ids(await api('/api/v1/units?sort=cost&limit=3'))).toEqual(['s-1', 't011', 't010']);
    expect(ids(await api('/api/v1/units?sort=duration&order=asc&cost_min=0.004&cost_max=0.008'))).toEqual(['t004', 't008', 't005', 't006', 't007']);
    expect(ids(await api('/api/v1/units?kind=session'))).toEqual(['s-1']);
    expect(ids(await api('/api/v1/units?conversation_id=conv-1'))).toEqual(['s-1']);
    expect(ids(await api(`/api/v1/units?from=${NOW - 120_000}&to=${NOW}`))).toEqual(['t001', 't002']);
    expect(ids(await api("/api/v1/units?agent=x'%20OR%201%3D1%20--"))).toEqual([]);
  });

  it('GET /api/v1/sessions lists session units only', async () => {
    expect(ids(await api('/api/v1/sessions', '/api/v1/sessions'))).toEqual(['s-1']);
    expect(await refused('/api/v1/sessions?kind=trace')).toMatch(/query: Unrecognized key: "kind"/);
  });

  it('answers 400 naming the bad parameter', async () => {
    expect(await refused('/api/v1/units?limit=1001')).toContain('query.limit: at most 1000 rows a page');
    expect(await refused('/api/v1/units?verdict=pass')).toContain('query.verdict: needs check');
    expect(await refused('/api/v1/units?cost_min=cheap')).toContain('query.cost_min');
    expect(await refused('/api/v1/units?cost_min=2&cost_max=1')).toContain('query.cost_min: is above cost_max');
    expect(await refused('/api/v1/units?sort=name')).toContain('query.sort');
    expect(await refused('/api/v1/units?q=a%20b%20c%20d%20e%20f%20g%20h%20i')).toContain('query.q: at most 8 words');
    expect(await refused('/api/v1/units?cursor=nope')).toContain('query.cursor: not a cursor this API returned');
    const { next_cursor } = await api('/api/v1/units?limit=2');
    expect(await refused(`/api/v1/units?sort=cost&cursor=${next_cursor}`)).toContain('query.cursor: belongs to another sort or order');
  });
});

describe('the /units and /sessions pages', () => {
  const page = async (path: string): Promise<{ status: number; html: string }> => {
    const res = await app.request(path);
    return { status: res.status, html: await res.text() };
  };

  it('lists units with links to their pages, badges, the filters kept in the form, links and next page', async () => {
    const { status, html } = await page('/units?agent=triage&limit=3&q=question');
    expect(status).toBe(200);
    expect(html.match(/<tr data-unit="/g)).toHaveLength(3);
    expect(html).toContain('<a href="/units/t001">');
    expect(html).toContain('data-badge="grounded"');
    expect(html).toContain('<input type="text" name="agent" value="triage"');
    expect(html).toContain('<input type="search" name="q" value="question"');
    expect(html).toMatch(/<a href="\/units\?q=question&amp;agent=triage&amp;limit=3&amp;cursor=[A-Za-z0-9_-]+" data-next-page>/);
    expect(html).toContain('href="/units?q=question&amp;agent=triage&amp;limit=3&amp;sort=cost&amp;order=desc" class="" data-sort="cost"');
    expect(html).toContain('href="/api/v1/units?q=question&amp;agent=triage&amp;limit=3" data-api-link');
    expect(html).toContain('<a href="/units" class="active">Units</a>');
  });

  it('escapes what came from a trace, and treats empty form fields as no filter', async () => {
    const { html } = await page('/units?q=parcel&agent=&status=&sort=time&order=desc');
    expect(html).toContain('data-unit="t007"');
    expect(html).not.toContain('<b>parcel</b>');
    const hostile = await page('/units?agent=%22%3E%3Cscript%3Ex()%3C%2Fscript%3E');
    expect(hostile.html).toContain('value="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"');
    expect(hostile.html).toContain('data-empty');
  });

  it('answers a bad filter with a 400 page naming it', async () => {
    const { status, html } = await page('/units?cost_max=-1');
    expect(status).toBe(400);
    expect(html).toContain('cost_max: cost_max: at least 0');
  });

  it('lists sessions on /sessions, and the unit page links back into the explorer', async () => {
    const { html } = await page('/sessions');
    expect(html.match(/<tr data-unit="/g)).toHaveLength(1);
    expect(html).toContain('data-unit="s-1"');
    const unitHtml = (await page('/units/s-1')).html;
    expect(unitHtml).toContain('<a href="/sessions" data-explorer-back>Sessions</a>');
    expect(unitHtml).toContain('<a href="/units?agent=triage" data-explorer-link="agent">runs of triage</a>');
    expect(unitHtml).toContain('<a href="/units?conversation_id=conv-1" data-explorer-link="conversation">');
  });
});
