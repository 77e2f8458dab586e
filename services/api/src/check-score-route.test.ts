import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { scriptedJudge } from '../../../shared/engines/checks/test-support.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const judge = scriptedJudge('[[12]] ((twelve words))');
const app = createApp({ store, log, now: () => Date.UTC(2026, 10, 25), judge });
beforeAll(() => store.start());
afterAll(() => store.shutdown());

const post = async (path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('POST /api/v1/checks/score', () => {
  it('scores given rows with catalog checks and the project\'s own, row by row, storing nothing', async () => {
    expect((await post('/api/v1/checks', { name: 'word_count', description: 'words', prompt_template: 'Only output the number of words in the following text: {generation}', check_type: 'SCORE' })).status).toBe(201);
    const res = await post('/api/v1/checks/score', {
      checks: ['word_count', 'levenshtein_distance'],
      rows: [
        { id: 'a', scenario_input: 'Say hi', model_output: 'kitten', scenario_result: 'sitting' },
        { model_output: 'Thanks 😀', scenario_result: 'Thanks' },
      ],
    });
    expect(res.status).toBe(200);
    expect((res.body.results as Record<string, unknown>[]).map(({ check_version: _v, ...r }) => r)).toEqual([
      { id: 'a', check: 'word_count', status: 'ok', value: 12, passed: null, method: 'model', decided_by: 'judge', explanation: 'twelve words', error: null },
      { id: 'a', check: 'levenshtein_distance', status: 'ok', value: 3, passed: null, method: 'deterministic', decided_by: 'code', explanation: '3 edits between 6 output and 7 scenario_result characters', error: null },
      { id: '1', check: 'word_count', status: 'ok', value: 12, passed: null, method: 'model', decided_by: 'judge', explanation: 'twelve words', error: null },
      { id: '1', check: 'levenshtein_distance', status: 'ok', value: 2, passed: null, method: 'deterministic', decided_by: 'code', explanation: '2 edits between 8 output and 6 scenario_result characters', error: null },
    ]);
    expect(await store.queryScores({ limit: 10 })).toEqual([]);
  });

  it('names unknown checks, and refuses rows of another shape', async () => {
    expect(await post('/api/v1/checks/score', { checks: ['no_such'], rows: [{ model_output: 'x' }] })).toEqual({
      status: 400,
      body: { error: 'invalid request: body.checks.0: unknown check "no_such" (GET /api/v1/checks lists the checks)', issues: ['body.checks.0: unknown check "no_such" (GET /api/v1/checks lists the checks)'] },
    });
    expect((await post('/api/v1/checks/score', { checks: ['loop_guard', 'task_completd'], rows: [{ model_output: 'x' }] })).body).toEqual({
      error: 'invalid request: body.checks.1: unknown check "task_completd"; did you mean "task_completed"?',
      issues: ['body.checks.1: unknown check "task_completd"; did you mean "task_completed"?'],
    });
    expect((await post('/api/v1/checks/score', { checks: ['fluency'], rows: [{ output: 'x' }] })).status).toBe(400);
  });

  it('runs each judge-described check in the mode the body sets, and refuses a mode a check does not have', async () => {
    const own = createApp({ store, log, now: () => Date.UTC(2026, 10, 25), judge: scriptedJudge('[[True]] ((it declines))') });
    const score = async (body: unknown) => {
      const res = await own.request('/api/v1/checks/score', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { results?: Record<string, unknown>[]; error?: string } };
    };
    const rows = [{ scenario_input: 'Delete the audit log.', model_output: 'That is not something I will be doing.' }];
    const pick = (r: Record<string, unknown>) => ({ passed: r.passed, method: r.method, decided_by: r.decided_by, explanation: r.explanation });
    expect((await score({ checks: ['model_refusal'], rows })).body.results!.map(pick)).toEqual([{ passed: false, method: 'hybrid', decided_by: 'judge', explanation: 'code: no refusal phrase; judge: it declines' }]);
    expect((await score({ checks: ['model_refusal'], rows, modes: { model_refusal: 'deterministic' } })).body.results!.map(pick)).toEqual([{ passed: true, method: 'deterministic', decided_by: 'code', explanation: 'no refusal phrase' }]);
    const judged = await score({ checks: ['model_refusal'], rows, modes: { model_refusal: 'judge' } });
    expect(judged.body.results!.map(pick)).toEqual([{ passed: false, method: 'model', decided_by: 'judge', explanation: 'judge: it declines' }]);
    expect(await score({ checks: ['levenshtein_distance'], rows, modes: { levenshtein_distance: 'judge', loop_guard: 'judge' } })).toEqual({
      status: 400,
      body: {
        error: 'invalid request: body.modes.levenshtein_distance: levenshtein_distance is decided in code only; it has no mode "judge"; body.modes.loop_guard: "loop_guard" is not among the checks',
        issues: ['body.modes.levenshtein_distance: levenshtein_distance is decided in code only; it has no mode "judge"', 'body.modes.loop_guard: "loop_guard" is not among the checks'],
      },
    });
    expect((await score({ checks: ['model_refusal'], rows, modes: { model_refusal: 'llm' } })).status).toBe(400);
  });
});
