import { afterAll, describe, expect, it } from 'vitest';
import { createAlertRepository, initialAlertState, type AlertEvent } from '../../../shared/engines/alerts/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

const log = createSilentLogger();

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.shutdown();
});

async function setup() {
  const store = createDuckDbStore({ path: ':memory:', log });
  stores.push(store);
  await store.start();
  let t = 1_000;
  const app = createApp({ store, log, now: () => (t += 10) });
  const send = (method: string, path: string, body?: unknown) =>
    app.request(`/api/v1${path}`, { method, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  return { store, app, send };
}

const rule = { name: 'loop guard', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, notify: [{ type: 'webhook', url: 'http://93.184.216.34:9999/hook' }] };

describe('alert rule routes', () => {
  it('create, read, list with state, replace and delete a rule', async () => {
    const { store, send } = await setup();
    const created = await send('POST', '/alert-rules', rule);
    expect(created.status).toBe(201);
    const stored = (await created.json()) as { id: string };
    expect(stored).toEqual({ ...rule, id: stored.id, project: 'default', created_at_ms: 1_010, updated_at_ms: 1_010, enabled: true, metric: 'pass_rate', min_samples: 20, for_evaluations: 3 });
    expect(stored.id).toMatch(/^[0-9a-f-]{36}$/);

    expect(await (await send('GET', `/alert-rules/${stored.id}`)).json()).toEqual({ ...stored, status: null });
    await createAlertRepository(store).putState('default', { ...initialAlertState(stored.id), state: 'firing', fired_at_ms: 5 }, 5);
    const list = (await (await send('GET', '/alert-rules')).json()) as { rules: Array<{ id: string; status: { state: string } | null }> };
    expect(list.rules.map((r) => [r.id, r.status?.state])).toEqual([[stored.id, 'firing']]);

    const replaced = await send('PUT', `/alert-rules/${stored.id}`, { ...rule, threshold: 0.8, name: 'renamed' });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ id: stored.id, name: 'renamed', threshold: 0.8, created_at_ms: 1_010, updated_at_ms: 1_020 });

    expect((await send('DELETE', `/alert-rules/${stored.id}`)).status).toBe(204);
    expect((await send('GET', `/alert-rules/${stored.id}`)).status).toBe(404);
    expect(await store.listDocs({ kind: 'alert_rule' })).toEqual([]);
    expect(await store.listDocs({ kind: 'alert_state' })).toEqual([]);
  });

  it('answers 400 naming every invalid field', async () => {
    const { send } = await setup();
    const res = await send('POST', '/alert-rules', { ...rule, window: 'soon', threshold: 'high', notify: [{ type: 'pager', url: 'x' }, { type: 'webhook', url: 'x' }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; issues: string[] };
    expect(body.issues.sort()).toEqual([
      "body.notify.0.type: Invalid discriminator value. Expected 'webhook' | 'slack' | 'pagerduty' | 'email'",
      'body.notify.1.url: must be an http(s) URL',
      'body.threshold: Invalid input: expected number, received string',
      'body.window: must be a duration such as "30s", "15m", "1h" or "7d"',
    ]);
    expect(body.error).toMatch(/^invalid request: /);
    expect(await (await send('POST', '/alert-rules', '{not json')).json()).toEqual({ error: 'invalid request: the body must be JSON' });
    expect((await send('PUT', '/alert-rules/x', { ...rule, kind: 'nope' })).status).toBe(400);
    expect(await (await send('GET', '/alerts?limit=0&colour=red')).json()).toEqual({
      error: 'invalid request: query.limit: Too small: expected number to be >=1; query: Unrecognized key: "colour"',
      issues: ['query.limit: Too small: expected number to be >=1', 'query: Unrecognized key: "colour"'],
    });
  });

  it('creates metric rules with their defaults and refuses levels out of order', async () => {
    const { send } = await setup();
    const p95 = { name: 'p95', kind: 'metric_threshold', metric: 'duration_ms', stat: 'p95', window: '15m', filters: { agent: 'booking', model: 'gpt-4o' }, warning: 5000, critical: 8000 };
    const created = await send('POST', '/alert-rules', p95);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ ...p95, direction: 'above', min_samples: 1, for_evaluations: 1, notify: [], enabled: true });
    const regression = { name: 'v2 slower', kind: 'metric_regression', metric: 'cost_usd', baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } };
    expect(await (await send('POST', '/alert-rules', regression)).json()).toMatchObject({ ...regression, alpha: 0.05, min_samples: 30, window: '7d' });
    const bad = await send('POST', '/alert-rules', { ...p95, critical: 4000 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { issues: string[] }).issues).toEqual(['body.critical: must be above warning']);
    expect(((await (await send('POST', '/alert-rules', { ...regression, metric: 'volume' })).json()) as { issues: string[] }).issues).toHaveLength(1);
  });

  it('takes a body only as application/json: 415 for what a page of another origin can send without a preflight', async () => {
    const { app, store } = await setup();
    const post = (contentType: string | undefined) =>
      app.request('/api/v1/alert-rules', { method: 'POST', body: JSON.stringify(rule), headers: contentType === undefined ? {} : { 'content-type': contentType } });
    for (const type of ['text/plain', 'text/plain; x=application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=application/json', 'application/jsonx']) {
      const res = await post(type);
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({ error: `unsupported Content-Type "${type}": send application/json` });
    }
    // A string body without a header is sent as text/plain by fetch: refused as well.
    expect(await (await post(undefined)).json()).toEqual({ error: 'unsupported Content-Type "text/plain;charset=UTF-8": send application/json' });
    expect(await store.listDocs({ kind: 'alert_rule' })).toEqual([]);
    expect((await post(' Application/JSON ; charset=UTF-8')).status).toBe(201);
    expect((await store.listDocs({ kind: 'alert_rule' })).length).toBe(1);
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/api/v1/alert-rules'].post.responses)).toContain('415');
    expect(Object.keys(doc.paths['/api/v1/alert-rules'].get.responses)).not.toContain('415');
  });

  it("caps a project's email: recipients over its rules, the reminder floor, the rule count", async () => {
    const { send } = await setup();
    const mailTo = (from: number) => ({ ...rule, notify: [{ type: 'email', to: Array.from({ length: 10 }, (_, i) => `r${from + i}@example.com`) }] });
    expect((await send('POST', '/alert-rules', mailTo(0))).status).toBe(201);
    const same = await send('POST', '/alert-rules', mailTo(0));
    expect(same.status).toBe(201);
    expect((await send('POST', '/alert-rules', mailTo(10))).status).toBe(201);
    const over = await send('POST', '/alert-rules', mailTo(20));
    expect([over.status, ((await over.json()) as { error: string }).error]).toEqual([
      400,
      "invalid request: a project's rules email at most 20 distinct addresses (TRACECHECK_EMAIL_MAX_RECIPIENTS); this would make 30",
    ]);
    const often = await send('POST', '/alert-rules', { ...mailTo(0), remind_every: '1m' });
    expect(((await often.json()) as { error: string }).error).toBe('invalid request: remind_every of a rule that emails must be at least 15 min (TRACECHECK_EMAIL_MIN_REMIND_MINUTES)');
    // Replacing a rule does not count its own recipients twice.
    const id = ((await same.json()) as { id: string }).id;
    expect((await send('PUT', `/alert-rules/${id}`, mailTo(10))).status).toBe(200);
    for (let i = 3; i < 100; i++) expect((await send('POST', '/alert-rules', rule)).status).toBe(201);
    const hundredFirst = await send('POST', '/alert-rules', rule);
    expect([hundredFirst.status, ((await hundredFirst.json()) as { error: string }).error]).toEqual([400, 'invalid request: a project has at most 100 alert rules (TRACECHECK_ALERT_MAX_RULES); delete one first']);
  });

  it('answers 404 for an unknown rule id', async () => {
    const { send } = await setup();
    expect((await send('GET', '/alert-rules/nope')).status).toBe(404);
    expect(await (await send('PUT', '/alert-rules/nope', rule)).json()).toEqual({ error: 'no alert rule with id "nope"' });
    expect((await send('DELETE', '/alert-rules/nope')).status).toBe(404);
  });

  it('lists the history newest first, by rule, with a next cursor', async () => {
    const { store, send } = await setup();
    const repo = createAlertRepository(store);
    const event = (id: string, ruleId: string, at: number): AlertEvent => ({
      id, project: 'default', rule_id: ruleId, rule_name: ruleId, state: 'firing', delivery_status: 'none', deliveries: [], created_at_ms: at,
      payload: { rule: ruleId, state: 'firing', kind: 'threshold', check: 'c', summary: 's', value: 0.5, threshold: 0.9, window: '15m', units: [], fired_at: new Date(at).toISOString() },
    });
    for (const [i, r] of ['a', 'b', 'a', 'b', 'a'].entries()) await repo.putEvent(event(`e${i}`, r, 100 * (i + 1)), 100 * (i + 1));
    await repo.putEvent({ ...event('x', 'a', 50), project: 'other' }, 50);

    const first = (await (await send('GET', '/alerts?limit=2')).json()) as { alerts: AlertEvent[]; next: string | null };
    expect(first.alerts.map((e) => e.id)).toEqual(['e4', 'e3']);
    expect(first.next).toBe('301');
    const second = (await (await send('GET', `/alerts?limit=10&before=${first.next}`)).json()) as { alerts: AlertEvent[]; next: string | null };
    expect([second.alerts.map((e) => e.id), second.next]).toEqual([['e2', 'e1', 'e0'], null]);
    const onlyB = (await (await send('GET', '/alerts?rule_id=b')).json()) as { alerts: AlertEvent[] };
    expect(onlyB.alerts.map((e) => e.id)).toEqual(['e3', 'e1']);
  });
});
