import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { scriptedJudge } from '../../../shared/engines/checks/test-support.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
// The chat model under test answers "Paris" to everything; the judge passes an output that names
// the expected city (the city appears twice in the prompt: as the output and as the expected result).
const sameCity = (text: string): boolean => ['Paris', 'Rome', 'Madrid'].some((city) => text.split(city).length > 2);
const judge = scriptedJudge((req) => (req.system.startsWith('Answer briefly') ? 'Paris' : sameCity(req.user) ? '[[True]]' : '[[False]]'));
let t = Date.UTC(2026, 10, 25);
const app = createApp({ store, log, now: () => (t += 1000), judge });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

interface Answer {
  error?: string;
  id: string;
  scenario_id: string;
  data_points: Array<{ id: string; input: unknown }>;
  model_metrics: { pass_rates: Record<string, number> };
  test_runs: Array<{ name: string }>;
  rows: Array<{ model_output: string; scores: Record<string, { passed: boolean }> }>;
  checks: unknown[];
}
const request = async (path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Answer }> => {
  const res = await app.request(path, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as Answer };
};

describe('run_test over a scenario set, stored and compared', () => {
  it('creates a scenario set, registers models, runs, lists, reads and compares runs', async () => {
    const check = await request('/api/v1/checks', 'POST', { name: 'Answer Correct', project_id: 'p-1', description: 'the expected city', prompt_template: 'Output: {generation}\nExpected: {scenario_result}\nCorrect (True or False in double brackets)?', check_type: 'PASS_FAIL' });
    expect(check).toMatchObject({ status: 201, body: { id: 'answer_correct', name: 'answer_correct', display_name: 'Answer Correct' } });
    const scenario = await request('/api/v1/scenario-sets', 'POST', { name: 'capitals', project_id: 'p-1', seed_data: [{ input: 'Capital of France?', result: 'Paris' }, { input: 'Capital of Italy?', result: 'Rome' }, { input: { country: 'Spain' }, result: 'Madrid' }] });
    expect(scenario.status).toBe(201);
    expect(scenario.body).toMatchObject({ name: 'capitals', type: 'SEED', rows: 3, project_id: 'default' });
    const sid = scenario.body.scenario_id;
    const points = await request(`/api/v1/scenario-sets/${sid}/data-points`);
    expect(points.body.data_points.map((p) => p.input)).toEqual(['Capital of France?', 'Capital of Italy?', { country: 'Spain' }]);

    const chat = await request('/api/v1/models', 'POST', { name: 'Capital Bot', tags: ['ci'], project_id: 'p-1', models: { generation: { model_id: 'm', temperature: 0, system_prompt_template: 'Answer briefly.', user_prompt_template: 'Q: {scenario_input} {unknown}' } } });
    expect(chat).toMatchObject({ status: 201, body: { id: 'Capital Bot', name: 'Capital Bot', tags: ['ci'] } });
    const again = await request('/api/v1/models', 'POST', { name: 'Capital Bot', models: { generation: { model_id: 'other' } } });
    expect(again).toMatchObject({ status: 200, body: { warning: 'model "Capital Bot" exists with another definition; register it with update=True to replace it' } });
    const custom = await request('/api/v1/models', 'POST', { name: 'echo', models: { custom: { name: 'echo' } } });
    expect(custom.status).toBe(201);

    const run = await request('/api/v1/test-runs', 'POST', { name: 'run 1', mut_id: 'Capital Bot', scenario_id: sid, project_id: 'p-1', type: 'NL_GENERATION', calculate_metrics: true, checks: ['Answer Correct', 'answer_correct', 'levenshtein_distance'], tags: ['v1'] });
    expect(run.body.error ?? run.status).toBe(201);
    expect(judge.requests.filter((r) => r.system === 'Answer briefly.').map((r) => r.user).sort()).toEqual(['Q: Capital of France? {unknown}', 'Q: Capital of Italy? {unknown}', 'Q: {"country":"Spain"} {unknown}']);
    expect(run.body).toMatchObject({ name: 'run 1', tags: ['v1'], type: 'NL_GENERATION', status: 'FINISHED', test_data_point_count: 3, model_metrics: { mean_scores: { answer_correct: 1 / 3, levenshtein_distance: 8 / 3 }, pass_rates: { answer_correct: 1 / 3 } } });

    const ids = (await request(`/api/v1/scenario-sets/${sid}/data-points`)).body.data_points.map((p) => p.id);
    const given = await request('/api/v1/test-runs', 'POST', { name: 'run 2', mut_id: 'echo', scenario_id: sid, checks: ['answer_correct', 'levenshtein_distance'], model_results: { [ids[0]]: { actual: 'Paris' }, [ids[1]]: { actual: 'Rome' }, [ids[2]]: { actual: 'Madrid' } } });
    expect(given.body.model_metrics.pass_rates).toEqual({ answer_correct: 1 });
    expect((await request('/api/v1/test-runs', 'POST', { name: 'x', mut_id: 'echo', scenario_id: sid })).status).toBe(400);
    expect((await request('/api/v1/test-runs', 'POST', { name: 'x', mut_id: 'Capital Bot', scenario_id: sid, checks: ['no_such_check'] })).status).toBe(400);

    const listed = await request('/api/v1/test-runs');
    expect(listed.body.test_runs.map((r) => r.name)).toEqual(['run 2', 'run 1']);
    const read = await request(`/api/v1/test-runs/${run.body.id}`);
    expect(read.body.rows.map((r) => [r.model_output, r.scores.answer_correct.passed])).toEqual([['Paris', true], ['Paris', false], ['Paris', false]]);

    const cmp = await request(`/api/v1/test-runs/compare?a=${run.body.id}&b=${given.body.id}`);
    expect(cmp.status).toBe(200);
    expect(cmp.body.checks).toEqual([
      expect.objectContaining({ check: 'answer_correct', output_type: 'pass_fail', a: { scored: 3, passed: 1, mean: 1 / 3 }, b: { scored: 3, passed: 3, mean: 1 }, difference: { value: expect.closeTo(2 / 3, 12), lower: expect.closeTo(-0.0585787, 6), upper: expect.closeTo(0.9385097, 6) }, test: { method: 'fisher', p_value: expect.closeTo(0.4, 12) }, paired: { a: 0, b: 2, ties: 1, share_a: 0, share_b: 2 / 3, p_value: 0.5 } }),
      expect.objectContaining({ check: 'levenshtein_distance', output_type: 'score', a: { scored: 3, passed: null, mean: 8 / 3 }, b: { scored: 3, passed: null, mean: 0 }, paired: { a: 2, b: 0, ties: 1, share_a: 2 / 3, share_b: 0, p_value: 0.5 } }),
    ]);
    expect((await request('/api/v1/test-runs/compare?a=nope&b=nope')).status).toBe(404);

    // The dashboard lists them, shows a run's rows and the comparison; users' text is escaped.
    const hostile = await request('/api/v1/test-runs', 'POST', { name: '<script>x</script>', mut_id: 'echo', scenario_id: sid, checks: [], model_results: { [ids[0]]: { actual: '<img>' }, [ids[1]]: { actual: 'b' }, [ids[2]]: { actual: 'c' } } });
    const list = await (await app.request('/test-runs')).text();
    expect(list).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(list).not.toContain('<script>x');
    expect(list).toContain(`<a href="/test-runs/${run.body.id}">run 1</a>`);
    const one = await (await app.request(`/test-runs/${hostile.body.id}`)).text();
    expect(one).toContain('&lt;img&gt;');
    const side = await app.request(`/test-runs/compare?a=${run.body.id}&b=${given.body.id}`);
    expect(side.status).toBe(200);
    expect(await side.text()).toContain('<tr data-check="answer_correct">');
    expect((await app.request('/test-runs/nope')).status).toBe(404);
  });
});
