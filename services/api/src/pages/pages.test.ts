import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckRegistry } from '../../../../shared/engines/checks/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../../shared/adapters/store/index.ts';
import { createApp } from '../create-app.ts';
import { barChart, niceStep, sparkline, timeChart, timeTicks } from './charts.ts';
import { h } from './html.ts';
import { distributionBars } from './check-page.ts';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 23, 12, 30);

describe('h: escaping by construction', () => {
  it('escapes every interpolated string, in text and attributes, and keeps only Html made by h', () => {
    const evil = `<script>alert(1)</script><img src=x onerror="x()"> & 'q'`;
    expect(h`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;x()&quot;&gt; &amp; &#39;q&#39;">&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;x()&quot;&gt; &amp; &#39;q&#39;</p>',
    );
    expect(h`<ul>${['a<', 'b'].map((x) => h`<li>${x}</li>`)}</ul>`.value).toBe('<ul><li>a&lt;</li><li>b</li></ul>');
    expect(h`${null}${undefined}${false}${0}`.value).toBe('0');
  });
});

describe('charts', () => {
  it('picks round time ticks and 1-2-5 count steps', () => {
    expect(timeTicks(0, 24 * HOUR)).toEqual([0, 6, 12, 18, 24].map((x) => x * HOUR));
    expect([niceStep(0.3), niceStep(3), niceStep(7), niceStep(1_300)]).toEqual([1, 5, 10, 2_000]);
  });

  it('draws a line per run of values, breaking at empty buckets, with a band and a legend', () => {
    const points = [0, 1, 2, 3].map((i) => ({ t: i * HOUR, y: i === 2 ? null : 0.5, lo: 0.4, hi: 0.6 }));
    const svg = timeChart({ series: [{ label: 'agent <v2>', color: '#0072B2', points }], from: 0, to: 4 * HOUR, bucketMs: HOUR, yMin: 0, yMax: 1, yFormat: String, yLabel: 'pass rate (%)' }).value;
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg.match(/<polygon/g)).toHaveLength(2);
    expect(svg.match(/<circle/g)).toHaveLength(3);
    expect(svg).toContain('agent &lt;v2&gt;');
    expect(svg).toContain('time (UTC), bucket start');
    expect(sparkline([{ t: 0, y: null }], { label: 'empty' }).value).not.toContain('polyline');
    expect(barChart([{ label: '0', count: 3 }], { xLabel: 'value', yLabel: 'scores' }).value.match(/<rect class="bar"/g)).toHaveLength(1);
  });

  it('bins many distinct values into 20 bars, and keeps few as they are', () => {
    expect(distributionBars([{ check: 'c', value: 0, count: 2 }, { check: 'c', value: 1, count: 5 }]).map((b) => [b.label, b.count])).toEqual([['0', 2], ['1', 5]]);
    const many = Array.from({ length: 100 }, (_, i) => ({ check: 'c', value: i / 100, count: 1 }));
    const bars = distributionBars(many);
    expect(bars).toHaveLength(20);
    expect(bars.reduce((n, b) => n + b.count, 0)).toBe(100);
  });
});

describe('pages over a store', () => {
  const log = createSilentLogger();
  const store = createDuckDbStore({ path: ':memory:', log });
  const app = createApp({ store, log, now: () => NOW, checks: { registry: createCheckRegistry(), live: ['loop_guard'] } });
  const unit: Unit = {
    schema_version: 1, unit_id: 'u1', kind: 'trace', trace_ids: ['u1'], agent_name: 'bot', agent_version: 'v1', service: 's', environment: 'prod',
    conversation_id: null, model: 'm', model_input: [], model_output: 'ok',
    message_history: [
      { role: 'user', content: '<script>alert(1)</script>' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"<b>"}' } }] },
      { role: 'tool', content: 'boom', tool_call_id: 'c1' },
      { role: 'assistant', content: 'done' },
    ],
    tool_calls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"<b>"}', result: null, error: 'timeout <i>' }], tools: [], scenario_input: null,
    scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [],
    truncated: false, span_count: 3, start_time_ms: NOW - HOUR, end_time_ms: NOW - HOUR, assembled_at_ms: NOW,
  };
  const score = (id: string, passed: boolean, version: string): Score => ({
    schema_version: 1, unit_id: id, unit_kind: 'trace', check: 'loop_guard', check_version: 'h1', status: 'ok', value: passed ? 1 : 0, passed, explanation: 'loop: <x>',
    method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'bot',
    agent_version: version, environment: 'prod', service: 's', unit_end_time_ms: NOW - HOUR, created_at_ms: NOW,
  });
  beforeAll(async () => {
    await store.start();
    await store.writeUnits([unit]);
    await store.writeScores([score('u1', false, 'v1'), score('u2', true, 'v1'), score('u3', true, 'v2'), score('u4', true, 'v2')]);
  });
  afterAll(() => store.shutdown());

  const page = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, csp: res.headers.get('content-security-policy'), html: await res.text() };
  };

  it('renders the overview with the summary numbers, split by version, under a strict CSP', async () => {
    const r = await page('/');
    expect(r.status).toBe(200);
    expect(r.csp).toContain("script-src 'self'");
    expect(r.html).toContain('75.0%');
    expect(r.html).toMatch(/data-split[\s\S]*v1[\s\S]*50\.0%[\s\S]*v2[\s\S]*100\.0%/);
  });

  it("escapes a unit's transcript and marks the failed tool result", async () => {
    const r = await page('/units/u1');
    expect(r.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.html).not.toContain('<script>alert');
    expect(r.html).toContain('timeout &lt;i&gt;');
    expect(r.html).toContain('class="turn tool failed"');
    expect(r.html).toContain('final answer');
    expect((await page('/units/nope')).status).toBe(404);
  });

  it('answers 400 for a bad filter and 404 for an unknown check without scores', async () => {
    expect((await page('/?window=2y')).status).toBe(400);
    expect((await page('/checks/no_such_check')).status).toBe(404);
    expect((await page('/checks/loop_guard')).status).toBe(200);
    expect((await page('/compare?a.agent_version=v1&b.agent_version=v2')).html).toContain('data-verdict');
  });

  it('lists a check saved through the API at once, before it has a score, with its page', async () => {
    const saved = await app.request('/api/v1/checks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'polite_reply', description: 'answers politely', prompt_template: 'Is {model_output} polite?', check_type: 'pass_fail' }),
    });
    expect(saved.status).toBe(201);
    const list = await page('/checks');
    expect(list.html).toContain('data-check-row="polite_reply"');
    expect(list.html).toContain('answers politely');
    const one = await page('/checks/polite_reply');
    expect(one.status).toBe(200);
    expect(one.html).toContain('Is {model_output} polite?');
  });
});
