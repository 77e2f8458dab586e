import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unit } from '../../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../../shared/adapters/store/index.ts';
import { createCheckRegistry } from '../../../../shared/engines/checks/index.ts';
import { sampleKey } from '../../../../shared/engines/monitors/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createApp } from '../create-app.ts';

// The scoring plan as the checks page, the unit page and GET /api/v1/scoring-plan show it: the
// case of issue 34, one monitor on weather-bot leaving travel-bot with nothing.

const NOW = Date.UTC(2026, 10, 23, 12);
const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
let waiting: number | null = null;
const app = createApp({
  store,
  log,
  now: () => NOW,
  checks: { registry: createCheckRegistry(), live: ['loop_guard', 'task_completed'], sessionLive: [], unitsWaiting: () => waiting },
});

const unit = (id: string, agent: string, kind: Unit['kind'] = 'trace'): Unit => ({
  schema_version: 1, unit_id: id, kind, trace_ids: [id], agent_name: agent, agent_version: 'v1', service: 's', environment: 'prod', conversation_id: null,
  model: 'm', model_input: [], model_output: 'hi', message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null,
  simulation_id: null, simulation_message_history: null, usage: {}, errors: [], truncated: false, span_count: 1, start_time_ms: NOW - 7_200_000,
  end_time_ms: NOW - 3_600_000, assembled_at_ms: NOW - 3_500_000, project: 'default',
});
// Two weather-bot units on either side of a 50% sample, by the hash the scorer samples with.
const ids = Array.from({ length: 50 }, (_, i) => `weather-${i}`);
const inHalf = ids.find((id) => sampleKey(id) < 0.5)!;
const outOfHalf = ids.find((id) => sampleKey(id) >= 0.5)!;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await app.request(path, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  return { status: res.status, text: await res.text() };
}
const json = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const r = await call(method, path, body);
  return { status: r.status, body: r.text === '' ? null : JSON.parse(r.text) };
};
const scoresBox = (page: string): string => page.slice(page.indexOf('data-scores'), page.indexOf('</aside>'));

beforeAll(async () => {
  await store.start();
  await store.writeUnits([unit(inHalf, 'weather-bot'), unit(outOfHalf, 'weather-bot'), unit('travel-1', 'travel-bot'), unit('travel-s', 'travel-bot', 'session')]);
});
afterAll(() => store.shutdown());

const weather = { name: 'weather', checks: ['conciseness'], filters: { agent: 'weather-bot' } };

describe('the scoring plan', () => {
  it('without monitors: the defaults, per kind of unit; a session unit says no check runs on it', async () => {
    const plan = await json('GET', '/api/v1/scoring-plan');
    expect(plan.body).toMatchObject({ project: 'default', mode: 'defaults', defaults: { trace: ['loop_guard', 'task_completed'], session: [] }, monitors: [], units_waiting: null });
    expect((plan.body as { agents: unknown[] }).agents).toEqual([
      { agent: 'weather-bot', unit_kind: 'trace', units: 2, looked_at: 2, with_checks: 2, checks: ['loop_guard', 'task_completed'], reason: null },
      { agent: 'travel-bot', unit_kind: 'trace', units: 1, looked_at: 1, with_checks: 1, checks: ['loop_guard', 'task_completed'], reason: null },
      { agent: 'travel-bot', unit_kind: 'session', units: 1, looked_at: 1, with_checks: 0, checks: [], reason: 'No check runs on session units: the project has no monitor and TRACECHECK_SESSION_CHECKS is empty.' },
    ]);
    const page = (await call('GET', '/checks')).text;
    expect(page).toContain('data-plan-mode="defaults"');
    expect(page).toMatch(/data-check-row="task_completed">.*\n<td data-live><span class="badge ok">every trace unit<\/span>/);
    expect(scoresBox((await call('GET', '/units/travel-s')).text)).toContain('data-no-scores="no_default_checks">No check runs on session units: the project has no monitor and TRACECHECK_SESSION_CHECKS is empty.');
  });

  it('a dry run says which agents a monitor would leave with no check, and saves nothing', async () => {
    const preview = await json('POST', '/api/v1/monitors?dry_run=true', weather);
    expect(preview.status).toBe(200);
    expect((preview.body as { warning: string }).warning).toBe(
      'Saving monitor "weather" leaves an agent seen in the last 7 days with no check: travel-bot (trace units). Once a project has monitors, they decide: add a monitor for it, or widen this one\'s filters.',
    );
    expect((preview.body as { left_without_checks: Array<{ agent: string; checks_now: string[] }> }).left_without_checks.map((r) => [r.agent, r.checks_now])).toEqual([['travel-bot', ['loop_guard', 'task_completed']]]);
    expect(await json('GET', '/api/v1/monitors')).toEqual({ status: 200, body: { monitors: [] } });
    expect((await json('POST', '/api/v1/monitors?dry_run=true', { ...weather, filters: {} })).body).toMatchObject({ left_without_checks: [], warning: null });
  });

  it('with one monitor on weather-bot: the plan, the checks page and the unit pages of travel-bot say nothing runs, and why', async () => {
    expect((await json('POST', '/api/v1/monitors', { ...weather, sample_rate: 0.5 })).status).toBe(201);
    const plan = (await json('GET', '/api/v1/scoring-plan')).body as { mode: string; agents: unknown[] };
    expect(plan.mode).toBe('monitors');
    const none = 'No monitor matches this unit, so no check runs on it: once a project has monitors, they decide. Monitors: weather.';
    expect(plan.agents).toEqual([
      { agent: 'weather-bot', unit_kind: 'trace', units: 2, looked_at: 2, with_checks: 1, checks: ['conciseness'], reason: 'Sampled out: monitor weather scores 50% of the units it matches, and this unit is outside the sample (chosen by a hash of its id, so it stays out).' },
      { agent: 'travel-bot', unit_kind: 'trace', units: 1, looked_at: 1, with_checks: 0, checks: [], reason: none },
      { agent: 'travel-bot', unit_kind: 'session', units: 1, looked_at: 1, with_checks: 0, checks: [], reason: none },
    ]);
    const page = (await call('GET', '/checks')).text;
    expect(page).toContain('data-plan-mode="monitors"');
    expect(page).toMatch(/data-check-row="task_completed">.*\n<td data-live><span class="muted">no<\/span>/);
    expect(page).toMatch(/data-check-row="conciseness">.*\n<td data-live><span class="badge ok">monitor weather<\/span>/);
    expect(page).toContain(`<tr data-plan-agent="travel-bot" data-kind="trace"><td>travel-bot</td><td>trace</td><td class="num">1</td><td><span class="muted">none</span></td>\n<td><span class="badge fail">no check runs</span> <span class="muted">${none}</span>`);
    expect(scoresBox((await call('GET', '/units/travel-1')).text)).toContain(`data-no-scores="no_monitor_matches">${none} <a href="/checks#plan">`);
    expect(scoresBox((await call('GET', `/units/${outOfHalf}`)).text)).toContain('data-no-scores="sampled_out">Sampled out: monitor weather scores 50%');
  });

  it('a unit the plan scores says it is pending only while the scorer has a backlog', async () => {
    expect(scoresBox((await call('GET', `/units/${inHalf}`)).text)).toContain('data-no-scores="pending_unknown">The plan runs conciseness on this unit; no score is written yet.');
    waiting = 7;
    expect(scoresBox((await call('GET', `/units/${inHalf}`)).text)).toContain('data-no-scores="pending">Scoring pending: 7 units waiting for the scorer. The plan runs conciseness on this unit.');
    waiting = 0;
    expect(scoresBox((await call('GET', `/units/${inHalf}`)).text)).toContain('data-no-scores="not_scored">The plan runs conciseness on this unit today, and the scorer has no backlog, so no score is on its way');
    waiting = null;
  });
});
