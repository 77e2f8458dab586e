import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';
import { openApiChecker } from './testing/openapi-check.ts';

// Monitoring endpoints over a real (in-memory) DuckDB store, with exact expected numbers (Wilson
// bounds checked by hand: (p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.96), and every
// answer checked against the OpenAPI document the server publishes.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const app = createApp({ store, log, now: () => NOW });
const HOUR = 3_600_000;

function score(i: number, o: Partial<Score>): Score {
  return {
    schema_version: 1, unit_id: `u${i}`, unit_kind: 'trace', check: 'loop_guard', check_version: 'h1', status: 'ok', value: 1, passed: true,
    explanation: '', method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0,
    agent_name: 'booking-agent', agent_version: 'v1', environment: 'prod', service: 'booking', unit_end_time_ms: NOW - 2 * HOUR, created_at_ms: NOW - 2 * HOUR + 500, project: 'default', ...o,
  };
}

// v1: 398 runs, 20 fail loop_guard (5.0%); v2: 412 runs, 122 fail (29.6%). Runs spread over the
// last 3 hours by index. A rating check (score type) too, and an error and a not_run.
const scores: Score[] = [];
for (let i = 0; i < 398; i++) scores.push(score(i, { passed: i >= 20, value: i >= 20 ? 1 : 0, unit_end_time_ms: NOW - 3 * HOUR + i * 10_000 }));
for (let i = 0; i < 412; i++) scores.push(score(1000 + i, { agent_version: 'v2', passed: i >= 122, value: i >= 122 ? 1 : 0, unit_end_time_ms: NOW - 3 * HOUR + i * 10_000 }));
for (let i = 0; i < 40; i++) {
  scores.push(score(i, { check: 'rating', passed: null, value: 4 + (i % 2), method: 'model' }));
  scores.push(score(1000 + i, { check: 'rating', agent_version: 'v2', passed: null, value: 2 + (i % 2), method: 'model' }));
}
scores.push(score(5000, { check: 'task_completed', status: 'error', passed: null, value: null, error: 'judge timed out', method: 'model' }));
scores.push(score(5001, { check: 'task_completed', status: 'not_run', passed: null, value: null, error: 'no judge', method: 'model' }));
scores.push(score(5002, { check: 'task_completed', passed: false, value: 0, method: 'model', unit_end_time_ms: NOW - 26 * HOUR }));
scores.push(score(5003, { project: 'someone-else', passed: false }));
// Other tools' evaluations (gen_ai.evaluation.result): one under a name of its own, one under ours.
const EXTERNAL = { method: 'external', check_version: 'external:evals/judge' } as const;
for (let i = 0; i < 10; i++) {
  scores.push(score(i, { ...EXTERNAL, check: 'Builtin.Helpfulness', passed: true }));
  scores.push(score(1000 + i, { ...EXTERNAL, check: 'Builtin.Helpfulness', agent_version: 'v2', passed: false, value: 0 }));
}
for (let i = 0; i < 5; i++) scores.push(score(i, { ...EXTERNAL, passed: false, value: 0 }));

let spec: Awaited<ReturnType<typeof openApiChecker>>;
beforeAll(async () => {
  await store.start();
  await store.writeScores(scores);
  spec = await openApiChecker(app);
});
afterAll(() => store.shutdown());

async function get(path: string, docPath: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request(path);
  const body = (await res.json()) as Record<string, unknown>;
  spec.check('get', docPath, res.status, body);
  return { status: res.status, body };
}

describe('GET /api/v1/compare', () => {
  it('says v2 is worse than v1 on loop_guard, with both rates, intervals, the test, p-value and failing units', async () => {
    const { status, body } = await get('/api/v1/compare?check=loop_guard&a.agent_version=v1&b.agent_version=v2', '/api/v1/compare');
    expect(status).toBe(200);
    const [c] = body.comparisons as Array<Record<string, unknown>>;
    expect(c).toMatchObject({
      check: 'loop_guard',
      type: 'pass_fail',
      a: { n: 398, passed: 378, rate: 0.949749, ci: [0.92366, 0.967238] },
      b: { n: 412, passed: 290, rate: 0.703883, ci: [0.658079, 0.745921] },
      test: 'two-proportion z',
      verdict: 'worse',
    });
    expect(c.p_value).toBeLessThan(1e-15);
    expect((c.difference as { value: number }).value).toBe(-0.245865);
    const failing = c.failing_units as Array<{ unit_id: string; href: string }>;
    expect(failing).toHaveLength(20);
    expect(failing.every((f) => Number(f.unit_id.slice(1)) >= 1000 && Number(f.unit_id.slice(1)) < 1122)).toBe(true);
    expect(failing[0].href).toBe(`/api/v1/units/${failing[0].unit_id}`);
    expect(body).toMatchObject({ alpha: 0.05, a: { agent_version: 'v1' }, b: { agent_version: 'v2' } });
  });

  it('compares every check when none is named, most worse first, with Mann–Whitney for score checks', async () => {
    const { body } = await get('/api/v1/compare?a.agent_version=v1&b.agent_version=v2', '/api/v1/compare');
    const rows = body.comparisons as Array<{ check: string; test: string; verdict: string; type: string; a: { mean: number | null }; b: { mean: number | null }; difference: { value: number } }>;
    expect(rows.map((r) => [r.check, r.type, r.test, r.verdict])).toEqual([
      ['rating', 'score', 'mann-whitney u', 'worse'],
      ['loop_guard', 'pass_fail', 'two-proportion z', 'worse'],
      ['task_completed', 'pass_fail', 'none', 'no significant difference'],
    ]);
    expect(rows[0]).toMatchObject({ a: { mean: 4.5 }, b: { mean: 2.5 }, difference: { value: -2 } });
  });

  it("keeps other tools' evaluations out unless include_external=true", async () => {
    const { body } = await get('/api/v1/compare?a.agent_version=v1&b.agent_version=v2&include_external=true', '/api/v1/compare');
    const rows = body.comparisons as Array<{ check: string; verdict: string; a: { n: number; passed: number }; b: { n: number; passed: number } }>;
    expect(rows.map((r) => [r.check, r.a.n, r.a.passed, r.b.n, r.b.passed])).toEqual([
      ['rating', 40, null, 40, null],
      ['Builtin.Helpfulness', 10, 10, 10, 0],
      ['loop_guard', 403, 378, 412, 290],
      ['task_completed', 1, 0, 0, 0],
    ]);
    expect((await app.request('/api/v1/compare?a.agent_version=v1&b.agent_version=v2&include_external=yes')).status).toBe(400);
  });

  it('uses Fisher exact on small counts and finds no difference where there is none', async () => {
    const { body } = await get(`/api/v1/compare?check=loop_guard&a.agent_version=v1&b.agent_version=v2&from=${NOW - 3 * HOUR}&to=${NOW - 3 * HOUR + 60_000}`, '/api/v1/compare');
    const [c] = body.comparisons as Array<Record<string, unknown>>;
    expect(c).toMatchObject({ a: { n: 6, passed: 0 }, b: { n: 6, passed: 0 }, test: 'fisher exact', p_value: 1, verdict: 'no significant difference' });
    const later = await get(`/api/v1/compare?check=loop_guard&a.agent_version=v1&b.agent_version=v2&from=${NOW - 3 * HOUR + 150_000}&to=${NOW - 3 * HOUR + 250_000}`, '/api/v1/compare');
    const [d] = later.body.comparisons as Array<Record<string, unknown>>;
    // 5/10 vs 0/10: scipy.stats.fisher_exact([[5, 5], [0, 10]]) → p = 0.032507739938080496
    expect(d).toMatchObject({ a: { n: 10, passed: 5 }, b: { n: 10, passed: 0 }, test: 'fisher exact', verdict: 'worse' });
    expect(d.p_value).toBeCloseTo(0.032507739938080496, 12);
  });

  it('refuses two sides that select the same units, and unknown parameters', async () => {
    expect((await app.request('/api/v1/compare?check=loop_guard')).status).toBe(400);
    const res = await app.request('/api/v1/compare?a.agent_version=v1&b.agent_version=v2&c.agent_version=v3');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('c.agent_version');
  });
});

describe('GET /api/v1/series', () => {
  it('gives hourly points with Wilson bands over the unit end time, empty buckets included', async () => {
    const { body } = await get(`/api/v1/series?check=loop_guard&bucket=1h&agent_version=v2&from=${NOW - 4 * HOUR}&to=${NOW}`, '/api/v1/series');
    const points = body.points as Array<Record<string, number | null>>;
    expect(points.map((p) => [p.t, p.n, p.passed])).toEqual([
      [NOW - 4 * HOUR, 0, 0],
      [NOW - 3 * HOUR, 360, 238],
      [NOW - 2 * HOUR, 52, 52],
      [NOW - HOUR, 0, 0],
    ]);
    expect(points[1]).toMatchObject({ pass_rate: 0.661111, wilson_low: 0.610743, wilson_high: 0.708077, mean: 0.661111, error_count: 0, not_run_count: 0 });
    expect(points[0]).toMatchObject({ pass_rate: null, wilson_low: null, wilson_high: null, mean: null });
  });

  it('defaults to the last 120 buckets and refuses too many points', async () => {
    const { body } = await get('/api/v1/series?check=loop_guard&bucket=5m', '/api/v1/series');
    expect((body.points as unknown[]).length).toBe(120);
    expect(body.to).toBe(NOW + 300_000);
    const res = await app.request(`/api/v1/series?check=loop_guard&bucket=1m&from=0&to=${NOW}`);
    expect(res.status).toBe(400);
  });
});

describe('GET /api/v1/checks/summary', () => {
  it('gives each check with its interval, errors and not_run, and the previous window', async () => {
    const { body } = await get('/api/v1/checks/summary', '/api/v1/checks/summary');
    expect(body).toMatchObject({ from: NOW + 1 - 24 * HOUR, to: NOW + 1 });
    const checks = body.checks as Array<Record<string, unknown>>;
    // The dashboard shows other tools' evaluations beside ours, by name (the five external loop_guard failures count there).
    expect(checks.map((c) => c.check)).toEqual(['Builtin.Helpfulness', 'loop_guard', 'rating', 'task_completed']);
    expect(checks[0]).toMatchObject({ n: 20, passed: 10, pass_rate: 0.5 });
    expect(checks[1]).toMatchObject({ n: 815, passed: 668, pass_rate: 0.819632, error_count: 0 });
    expect(checks[3]).toMatchObject({ n: 0, total: 2, pass_rate: null, error_count: 1, not_run_count: 1, previous: { n: 1, passed: 0, pass_rate: 0, ci: [0, 0.793457] } });
  });
});

describe('projects and the document', () => {
  it("never shows another project's scores", async () => {
    const { body } = await get('/api/v1/scores?unit_id=u5003', '/api/v1/scores');
    expect(body.scores).toEqual([]);
  });

  it('pages scores with next_cursor until the last page', async () => {
    const seen = new Set<string>();
    let cursor: string | null = '';
    for (let i = 0; i < 10 && cursor !== null; i++) {
      const { body }: { body: Record<string, unknown> } = await get(`/api/v1/scores?check=rating&limit=30${cursor ? `&cursor=${cursor}` : ''}`, '/api/v1/scores');
      for (const s of body.scores as Array<{ unit_id: string }>) seen.add(s.unit_id);
      cursor = body.next_cursor as string | null;
    }
    expect(seen.size).toBe(80);
    expect((await app.request('/api/v1/scores?cursor=not-a-cursor')).status).toBe(400);
  });

  it('publishes an OpenAPI 3.1 document of every route', () => {
    expect(spec.doc).toMatchObject({ openapi: '3.1.0' });
    expect(Object.keys(spec.doc.paths).sort()).toEqual([
      '/api/v1/alert-rules',
      '/api/v1/alert-rules/{id}',
      '/api/v1/alerts',
      '/api/v1/backfills',
      '/api/v1/backfills/{id}',
      '/api/v1/checks',
      '/api/v1/checks/generate',
      '/api/v1/checks/score',
      '/api/v1/checks/summary',
      '/api/v1/checks/{name}/agreement',
      '/api/v1/checks/{name}/try',
      '/api/v1/compare',
      '/api/v1/datasets',
      '/api/v1/datasets/{name}',
      '/api/v1/ingest/recent',
      '/api/v1/metrics/series',
      '/api/v1/metrics/steps/series',
      '/api/v1/metrics/steps/summary',
      '/api/v1/metrics/summary',
      '/api/v1/models',
      '/api/v1/monitors',
      '/api/v1/monitors/{name}',
      '/api/v1/pipeline',
      '/api/v1/problems',
      '/api/v1/problems/{id}',
      '/api/v1/problems/{id}/alert-rule',
      '/api/v1/problems/{id}/dataset',
      '/api/v1/problems/{id}/dismiss',
      '/api/v1/problems/{id}/merge',
      '/api/v1/problems/{id}/proposed-check',
      '/api/v1/problems/{id}/queue',
      '/api/v1/projects',
      '/api/v1/retention',
      '/api/v1/review-queues',
      '/api/v1/review-queues/{id}',
      '/api/v1/review-queues/{id}/next',
      '/api/v1/review-queues/{id}/units',
      '/api/v1/reviews',
      '/api/v1/scenario-sets',
      '/api/v1/scenario-sets/{id}/data-points',
      '/api/v1/scores',
      '/api/v1/scoring-plan',
      '/api/v1/series',
      '/api/v1/sessions',
      '/api/v1/simulations/{id}',
      '/api/v1/test-runs',
      '/api/v1/test-runs/compare',
      '/api/v1/test-runs/{id}',
      '/api/v1/units',
      '/api/v1/units/{unitId}',
      '/api/v1/units/{unitId}/revisions',
    ]);
  });
});
