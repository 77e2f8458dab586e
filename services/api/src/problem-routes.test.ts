import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createProblemBook, saveBook } from '../../../shared/engines/problems/index.ts';
import { failed, failureUnit, passed, refOf } from '../../../shared/engines/problems/test-support.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;
const store = createDuckDbStore({ path: ':memory:', log });
const app = createApp({ store, log, now: () => NOW });
let outageId = '';
let refusalId = '';

beforeAll(async () => {
  await store.start();
  const book = createProblemBook();
  // v1: 100 units, 2 outages; v2: 100 units, 30 outages (growing); 5 refusals of another agent a day ago; markup in a tool's name.
  for (let i = 0; i < 200; i++) {
    const version = i < 100 ? 'v1' : 'v2';
    const at = NOW - 3 * HOUR + i;
    const outage = version === 'v1' ? i % 50 === 0 : i % 10 < 3;
    const unit = failureUnit(`u${i}`, { agent_version: version, end_time_ms: at, ...(outage ? { tools: [['<b>book</b>', 'HTTP 503 Service Unavailable']] } : {}) });
    book.observe(refOf(unit), outage ? [failed('task_completed')] : [passed('task_completed')], unit);
  }
  for (let i = 0; i < 5; i++) {
    const unit = failureUnit(`r${i}`, { agent: 'chat', agent_name: 'chat', agent_version: 'v2', end_time_ms: NOW - 30 * HOUR + i });
    book.observe(refOf(unit), [failed('refusal', `I refused order ${i}.`)], unit);
  }
  await saveBook(store, 'default', book, NOW);
  outageId = book.list().find((p) => p.cause === 'tool_error')!.id;
  refusalId = book.list().find((p) => p.cause === 'check')!.id;
  // A stored unit of the outage, for its page's badge.
  await store.writeScoredUnits([{ unit: createTestUnit(1, { unit_id: 'u100', agent_name: 'support', agent_version: 'v2', errors: [{ message: 'booking failed' }], tool_calls: [{ id: 'c0', name: '<b>book</b>', arguments: '{}', result: null, error: 'HTTP 503 Service Unavailable' }] }), scores: [] }]);
});
afterAll(() => store.shutdown());

const post = (path: string, body: unknown) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the problems API', () => {
  it('lists problems ranked by units in the last 24 hours, and by growth', async () => {
    const res = await app.request('/api/v1/problems');
    const body = (await res.json()) as { problems: Array<{ id: string; title: string; recent: number; previous: number; count: number; growing_versions: string[]; state: string }>; count: number };
    expect(body.problems.map((p) => [p.title, p.recent, p.previous, p.count, p.growing_versions, p.state])).toEqual([
      ['support: <b>book</b> fails (unavailable)', 32, 0, 32, ['v2'], 'new'],
      ['chat: refusal:fail: I refused order <num>', 0, 5, 5, [], 'new'],
    ]);
    const growth = (await (await app.request('/api/v1/problems?sort=growth')).json()) as { problems: Array<{ id: string }> };
    expect(growth.problems.map((p) => p.id)).toEqual([outageId, refusalId]);
    expect((await app.request('/api/v1/problems?sort=size')).status).toBe(400);
  });

  it('gives one problem with its versions, rates, intervals and the always-valid test', async () => {
    const body = (await (await app.request(`/api/v1/problems/${outageId}`)).json()) as { versions: Array<{ version: string; units: number; occurrences: number; rate: number; baseline: string | null; growing: boolean }>; trend: unknown[] };
    expect(body.versions.map((v) => [v.version, v.units, v.occurrences, v.rate, v.baseline, v.growing])).toEqual([
      ['v1', 100, 2, 0.02, null, false],
      ['v2', 100, 30, 0.3, 'v1', true],
    ]);
    expect(body.trend).toEqual([{ t: Math.floor((NOW - 3 * HOUR) / HOUR) * HOUR, units: 32 }]);
    expect((await app.request('/api/v1/problems/nope')).status).toBe(404);
  });

  it('dismisses and merges with a reason, refusing what makes no sense', async () => {
    expect((await post(`/api/v1/problems/${refusalId}/dismiss`, {})).status).toBe(400);
    expect((await post(`/api/v1/problems/${refusalId}/merge`, { into: refusalId, reason: 'x' })).status).toBe(400);
    expect((await post(`/api/v1/problems/${refusalId}/merge`, { into: 'nope', reason: 'x' })).status).toBe(404);
    expect((await post(`/api/v1/problems/${refusalId}/dismiss`, { reason: 'policy says refuse' })).status).toBe(200);
    const listed = (await (await app.request('/api/v1/problems')).json()) as { problems: Array<{ id: string }> };
    expect(listed.problems.map((p) => p.id)).toEqual([outageId]);
    expect((await post(`/api/v1/problems/${refusalId}/merge`, { into: outageId, reason: 'same root cause' })).status).toBe(200);
    const all = (await (await app.request('/api/v1/problems?include_dismissed=true')).json()) as { problems: Array<{ id: string; count: number; merged: string[] }> };
    expect(all.problems.map((p) => [p.id, p.count, p.merged])).toEqual([[outageId, 37, [refusalId]]]);
  });

  it('renders the Problems page and a problem page with trace text escaped, and badges the unit page', async () => {
    const list = await (await app.request('/problems')).text();
    expect(list).toContain('support: &lt;b&gt;book&lt;/b&gt; fails (unavailable)');
    expect(list).not.toContain('<b>book</b>');
    const one = await (await app.request(`/problems/${outageId}`)).text();
    expect(one).toContain('<tr data-version="v2">');
    expect(one).toContain('<span class="badge worse">growing</span>');
    const unit = await (await app.request('/units/u100')).text();
    expect(unit).toContain(`data-problem-badge href="/problems/${outageId}">problem: support: &lt;b&gt;book&lt;/b&gt; fails (unavailable)</a>`);
    expect((await app.request('/problems/nope')).status).toBe(404);
  });
});
