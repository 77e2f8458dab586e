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
      { id: 'a', check: 'word_count', status: 'ok', value: 12, passed: null, method: 'model', explanation: 'twelve words', error: null },
      { id: 'a', check: 'levenshtein_distance', status: 'ok', value: 3, passed: null, method: 'deterministic', explanation: '3 edits between 6 output and 7 scenario_result characters', error: null },
      { id: '1', check: 'word_count', status: 'ok', value: 12, passed: null, method: 'model', explanation: 'twelve words', error: null },
      { id: '1', check: 'levenshtein_distance', status: 'ok', value: 2, passed: null, method: 'deterministic', explanation: '2 edits between 8 output and 6 scenario_result characters', error: null },
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
});
