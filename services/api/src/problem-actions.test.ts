import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import { createProblemBook, saveBook } from '../../../shared/engines/problems/index.ts';
import { failed, failureUnit, refOf } from '../../../shared/engines/problems/test-support.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const NOW = 1_800_000_000_000;
const store = createDuckDbStore({ path: ':memory:', log });
const app = createApp({ store, log, now: () => NOW });
let loopId = '';
let errorId = '';

function score(unitId: string, check: string, passed: boolean): Score {
  return {
    schema_version: 1, unit_id: unitId, unit_kind: 'trace', project: 'default', check, check_version: '1', status: 'ok', value: passed ? 1 : 0, passed, explanation: passed ? 'fine' : 'looped',
    method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'support', agent_version: 'v1', environment: 'prod',
    service: 'svc', unit_end_time_ms: NOW - 2_000, created_at_ms: NOW - 1_000, unit_revision: 1,
  };
}

beforeAll(async () => {
  await store.start();
  const book = createProblemBook();
  // Three looping units failing loop_guard, and one run error no check failed with.
  for (let i = 0; i < 3; i++) {
    const unit = failureUnit(`loop${i}`, { end_time_ms: NOW - 2_000, tools: [['search', null, '{"q":"x"}'], ['search', null, '{"q":"x"}'], ['search', null, '{"q":"x"}']] });
    book.observe(refOf(unit), [failed('loop_guard', 'looped')], unit);
    await store.writeScoredUnits([{ unit: createTestUnit(i, { unit_id: `loop${i}`, agent_name: 'support', agent_version: 'v1', end_time_ms: NOW - 2_000 }), scores: [score(`loop${i}`, 'loop_guard', false)] }]);
  }
  const crash = failureUnit('crash0', { end_time_ms: NOW - 2_000, errors: [{ message: 'worker crashed' }] });
  book.observe(refOf(crash), [], crash);
  // Another unit failing loop_guard, not of the problem: the queue must not take it.
  await store.writeScoredUnits([{ unit: createTestUnit(9, { unit_id: 'other', agent_name: 'support', end_time_ms: NOW - 2_000 }), scores: [score('other', 'loop_guard', false)] }]);
  await saveBook(store, 'default', book, NOW);
  loopId = book.list().find((p) => p.cause === 'loop')!.id;
  errorId = book.list().find((p) => p.cause === 'unit_error')!.id;
});
afterAll(() => store.shutdown());

const post = (path: string, body: unknown) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe("a problem's actions", () => {
  it('make a review queue over its units, against the check that failed with it', async () => {
    const res = await post(`/api/v1/problems/${loopId}/queue`, {});
    expect(res.status).toBe(201);
    const queue = (await res.json()) as { id: string; name: string; filter: unknown; unit_ids: string[] };
    expect(queue).toMatchObject({ name: 'Problem: support: loop over search', filter: { check: 'loop_guard', to_ms: 0 } });
    expect([...queue.unit_ids].sort()).toEqual(['loop0', 'loop1', 'loop2']);
    const held = (await (await app.request(`/api/v1/review-queues/${queue.id}`)).json()) as { units: number };
    expect(held.units).toBe(3);
    expect((await post(`/api/v1/problems/${loopId}/queue`, {})).status).toBe(409);
    const none = await post(`/api/v1/problems/${errorId}/queue`, {});
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: string }).error).toMatch(/^no check failed with problem .* \(unit_error\): a review queue reviews a check's verdicts; make a dataset of its units instead$/);
  });

  it('snapshot its units as a dataset', async () => {
    const res = await post(`/api/v1/problems/${loopId}/dataset`, {});
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: `problem-${loopId}`, version: 1, units: 3, created_at_ms: NOW, source: `problem ${loopId}: support: loop over search` });
    const gone = await post(`/api/v1/problems/${errorId}/dataset`, { name: 'crashes' });
    expect(gone.status).toBe(400);
    expect(await gone.json()).toEqual({ error: `the dataset would be empty: none of the 1 sampled units of problem ${errorId} is stored any more` });
  });

  it('make an alert rule for its state changes, refusing a misspelt kind', async () => {
    const res = await post(`/api/v1/problems/${loopId}/alert-rule`, { notify: [{ type: 'webhook', url: 'https://hooks.example.com/p' }] });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ kind: 'problem', name: 'Problem: support: loop over search', problem_id: loopId, events: ['problem_new', 'problem_regressed', 'problem_growing'], enabled: true });
    const typo = await post(`/api/v1/problems/${loopId}/alert-rule`, { events: ['problem_grown'] });
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as { issues: string[] }).issues).toEqual(['body.events.0: Invalid option: expected one of "problem_new"|"problem_regressed"|"problem_growing"']);
    const unknown = await post('/api/v1/alert-rules', { kind: 'problem', name: 'p', problem_id: 'nope' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { issues: string[] }).issues).toEqual(['body.problem_id: no problem "nope" in this project']);
  });

  it('answer 404 for a problem of no project', async () => {
    for (const action of ['queue', 'dataset', 'alert-rule']) expect((await post(`/api/v1/problems/nope/${action}`, {})).status).toBe(404);
  });
});
