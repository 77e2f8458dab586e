import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../../../../shared/engines/checks/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../../shared/adapters/store/index.ts';
import { PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, type PipelineStatus } from '../../../../shared/kit/metrics/index.ts';
import { createApp } from '../create-app.ts';
import { rangeText, unitCostText, usd } from './format.ts';
import { duration } from './pipeline-card.ts';
import { agentGraph } from './unit-timeline.ts';

// Issue 34's smaller things, as a user reads them: the pipeline card, "unpriced" costs, a bucket
// too fine for its window, an unbounded range, and the one-agent graph at its own size.

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 23, 12, 30);

describe('formatting what is unknown', () => {
  it('says unpriced, unbounded, and durations in words', () => {
    expect([usd(null), usd(0), usd(0.12345)]).toEqual(['unpriced', '$0.0000', '$0.1235']);
    expect(unitCostText({ cost_usd: 0, llm_calls: 2, unpriced_llm_calls: 2 })).toBe('unpriced (2 model calls)');
    expect(unitCostText({ cost_usd: 0.0012, llm_calls: 3, unpriced_llm_calls: 1 })).toBe('$0.001200 (+1 unpriced)');
    expect(unitCostText({ cost_usd: 0, llm_calls: 0, unpriced_llm_calls: 0 })).toBe('$0.000000');
    expect(rangeText([-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER])).toBe('unbounded');
    expect(rangeText([0, Number.MAX_SAFE_INTEGER])).toBe('≥ 0, unbounded above');
    expect(rangeText([0, 1])).toBe('in [0, 1]');
    expect([duration(45_000), duration(150_000), duration(3 * HOUR + 300_000)]).toEqual(['45 s', '2 min 30 s', '3 h 5 min']);
  });
});

describe('pages over a store: backlog, unpriced, clamp, range', () => {
  const log = createSilentLogger();
  const store = createDuckDbStore({ path: ':memory:', log });
  const registry = createCheckRegistry();
  registry.createOrUpdateCheck({ kind: 'model', name: 'open_score', description: 'any number', promptTemplate: 'Rate {model_output}', outputType: 'score', range: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] });
  const app = createApp({ store, log, now: () => NOW, checks: { registry, live: [] }, createRegistry: () => registry });
  const unit = (id: string, over: Partial<Unit> = {}): Unit => ({
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'bot', agent_version: 'v1', service: 's', environment: 'prod',
    conversation_id: null, model: 'mystery-model', model_input: [], model_output: 'ok', message_history: [], tool_calls: [], tools: [], scenario_input: null,
    scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 10, output_tokens: 5 }, errors: [],
    truncated: false, span_count: 2, start_time_ms: NOW - HOUR - 2_000, end_time_ms: NOW - HOUR, assembled_at_ms: NOW,
    steps: [{ type: 'llm', span_id: 'a', agent: 'bot', start_ms: 0, model: 'mystery-model', provider: null, input_tokens: 10, output_tokens: 5, latency_ms: 900, status: 'ok', cost_usd: null }],
    duration_ms: 2_000, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: 0, unpriced_llm_calls: 1, price_table: 'p1',
    ...over,
  });
  const score = (id: string): Score => ({
    schema_version: 1, unit_id: id, unit_kind: 'trace', check: 'loop_guard', check_version: 'h1', status: 'ok', value: 1, passed: true, explanation: '',
    method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'bot',
    agent_version: 'v1', environment: 'prod', service: 's', unit_end_time_ms: NOW - HOUR, created_at_ms: NOW,
  });
  const status = (over: Partial<PipelineStatus>): PipelineStatus => ({ instance: 'h:1', services: ['scorer'], written_at_ms: NOW - 4_000, interval_ms: 10_000, stages: [], judge: null, scored_per_minute: null, ...over });

  beforeAll(async () => {
    await store.start();
    await store.writeScoredUnits([{ unit: unit('u1'), scores: [score('u1')] }, { unit: unit('u2'), scores: [score('u2')] }]);
    const body = status({
      stages: [
        { stage: 'assemble', topic: 'spans', group: null, waiting: 40, error: null },
        { stage: 'score', topic: 'units', group: null, waiting: 1_500, error: null },
        { stage: 'sessions', topic: 'sessions', group: null, waiting: 0, error: null },
      ],
      judge: { rate_per_minute: 600, concurrency: 8, in_flight: 8, waiting: 120 },
      scored_per_minute: 600,
      open_sessions: { count: 2, idle_ms: 900_000 },
    });
    await store.putDoc({ kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, id: 'h:1', body, updated_at_ms: NOW - 4_000 });
  });
  afterAll(() => store.shutdown());

  const page = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, html: await res.text(), type: res.headers.get('content-type') };
  };

  it("shows each stage's backlog, the judge queue against its limit, and when the scorer is through", async () => {
    const r = await page('/');
    expect(r.status).toBe(200);
    expect(r.html).toContain('<span class="badge pending">through in about 2 min 30 s</span> <span class="muted">1,500 units at 600 a minute</span>');
    expect(r.html).toContain('<div class="tile" data-stage="assemble"><div class="muted">spans not yet assembled into units</div><div class="big" data-waiting>40</div></div>');
    expect(r.html).toContain('<div class="big" data-waiting>120</div><div class="muted" data-judge-limit>8 in flight of 8; limit 600 a minute</div>');
    const json = (await (await app.request('/api/v1/pipeline')).json()) as { eta_ms: number; stages: Array<{ stage: string; waiting: number | null }> };
    expect(json.eta_ms).toBe(150_000);
    expect(json.stages.map((s) => [s.stage, s.waiting])).toEqual([['assemble', 40], ['score', 1_500], ['route', null], ['sessions', 0]]);
  });

  it('says how many conversations are held open and when each becomes a session unit', async () => {
    expect((await page('/')).html).toContain('<div class="tile" data-open-sessions><div class="muted">conversations open</div><div class="big" data-waiting>2</div><div class="muted">each a session unit 15 min after its last trace</div></div>');
    const sessions = await page('/sessions');
    expect(sessions.html).toContain('<p class="sub" data-open-sessions>2 conversations are open. A conversation becomes a session unit here 15 min after its last trace (<code>TRACECHECK_SESSION_IDLE_MS</code>), or at once when a trace carries <code>tracecheck.session.end</code>; its traces are already under <a href="/units">units</a>.</p>');
    expect((await page('/units')).html).not.toContain('data-open-sessions');
  });

  it('says unpriced where no model call had a price, not $0.0000', async () => {
    const agents = await page('/agents');
    expect(agents.html).toContain('<td class="num" data-cost>unpriced</td><td class="num">unpriced</td>');
    expect(agents.html).not.toContain('$0.0000');
    expect((await page('/agents/bot')).html).not.toContain('$0.0000');
    expect((await page('/units/u1')).html).toContain('<dt>cost</dt><dd>unpriced (1 model call)</dd>');
    const compare = await page('/compare?a.agent_version=v1&b.agent_version=v2');
    expect(compare.html).toContain('<td class="num" data-a>unpriced<div class="muted">n = 0</div></td>');
  });

  it('clamps a bucket too fine for the window and says so, where the API answers 400', async () => {
    const r = await page('/checks/loop_guard?window=7d&bucket=1m');
    expect(r.status).toBe(200);
    expect(r.html).toContain('<div class="msg" data-clamped>1m buckets over this window make too many points: showing 1h buckets.</div>');
    expect(r.html).toContain('class="active">1h</a>');
    expect((await page('/checks/loop_guard?window=1h&bucket=1m')).html).not.toContain('data-clamped');
    expect((await app.request(`/api/v1/series?check=loop_guard&bucket=1m&from=${NOW - 7 * 24 * HOUR}&to=${NOW}`)).status).toBe(400);
  });

  it('draws at most one point per pixel of the chart: 1m buckets over a day are shown as 5m ones', async () => {
    const r = await page('/checks/loop_guard?window=24h&bucket=1m');
    expect(r.status).toBe(200);
    expect(r.html).toContain('<div class="msg" data-clamped>1m buckets over this window make too many points: showing 5m buckets.</div>');
    expect(r.html).toContain('class="active">5m</a>');
    expect(r.html).toContain('bucket=5m');
    // Over a month, hourly buckets (720) still fit.
    expect((await page('/checks/loop_guard?window=30d&bucket=1h')).html).not.toContain('data-clamped');
  });

  it("shows an unbounded score check's range as unbounded", async () => {
    const r = await page('/checks/open_score');
    expect(r.html).toContain('<dt>output</dt><dd>score unbounded</dd>');
    expect(r.html).not.toContain('9007199254740991');
    expect((await page('/checks/compression_ratio')).html).toContain('<dt>output</dt><dd>score ≥ 0, unbounded above</dd>');
  });

  it('draws one agent at its own size, serves a favicon and the refresh script, and offers the refresh toggle', async () => {
    expect(agentGraph(unit('u3')).value).toContain('viewBox="0 0 250 81" width="250" height="81"');
    const icon = await page('/favicon.ico');
    expect([icon.status, icon.type]).toEqual([200, 'image/svg+xml']);
    expect((await page('/assets/refresh.js')).html).toContain("const KEY = 'tracecheck.refresh-seconds';");
    const home = await page('/');
    expect(home.html).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
    expect(home.html).toContain('<option value="30" selected>30 s</option>');
    expect((await page('/review-queues')).html).not.toContain('data-auto-refresh');
  });
});
