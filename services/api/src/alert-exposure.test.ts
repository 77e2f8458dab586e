import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createAlertRepository, type AlertEvent } from '../../../shared/engines/alerts/index.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createApp } from './create-app.ts';

// Issue 23's alerting findings through the API: an admin key of one project pointed webhooks at
// loopback and 169.254.169.254, and every read key saw the targets' URLs (Slack's are bearer
// secrets) and each delivery's error text (a port scanner's answer).

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
const app = createApp({ store, log, keyring, security: { alertTargets: { allow: createAddressMatcher(parseAddressList('10.20.0.0/16').list) } } });
let admin = '';
let read = '';
beforeAll(async () => {
  await store.start();
  admin = (await keyring.create('shop', 'admin')).key;
  read = (await keyring.create('shop', 'read')).key;
});
afterAll(() => store.shutdown());

const send = (key: string, method: string, path: string, body?: unknown) =>
  app.request(`/api/v1${path}`, { method, headers: { Authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
const rule = (urls: string[]) => ({ name: 'loops', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, notify: urls.map((url) => ({ type: 'webhook', url })) });
const SLACK = 'https://hooks.slack.com/services/T000/B000/secret-token';

describe('alert targets through the API', () => {
  it('refuses loopback, metadata and private targets at creation and on replace, naming each', async () => {
    const res = await send(admin, 'POST', '/alert-rules', rule(['http://127.0.0.1:8123/?query=SELECT+1', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:10.0.0.1]/', 'http://93.184.216.34/ok']));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { issues: string[] }).issues).toEqual([
      'body.notify.0.url: 127.0.0.1, a loopback address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it',
      'body.notify.1.url: 169.254.169.254, a link-local (cloud metadata) address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it',
      'body.notify.2.url: ::ffff:a00:1 resolves to 10.0.0.1, a private address; list it in TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS to allow it',
    ]);
    // An allowed range is taken; so is a public address.
    const created = await send(admin, 'POST', '/alert-rules', rule(['http://10.20.1.2/hook', 'http://93.184.216.34/ok']));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await send(admin, 'PUT', `/alert-rules/${id}`, rule(['http://192.168.1.1/']))).status).toBe(400);
  });

  it('shows a read key target URLs masked and deliveries as delivered/failed only; an admin key sees them whole', async () => {
    const created = (await (await send(admin, 'POST', '/alert-rules', { ...rule([]), notify: [{ type: 'slack', url: SLACK }] })).json()) as { id: string };
    const event: AlertEvent = {
      id: 'e1', project: 'shop', rule_id: created.id, rule_name: 'loops', state: 'firing', delivery_status: 'done', created_at_ms: 500,
      payload: { rule: 'loops', state: 'firing', kind: 'threshold', check: 'loop_guard', summary: 's', value: 0.5, threshold: 0.9, window: '15m', units: [], fired_at: '2026-01-01T00:00:00.000Z' },
      deliveries: [{ type: 'slack', url: SLACK, outcome: 'failed', attempts: 5, error: 'fetch failed: connect ECONNREFUSED 10.20.0.9:6379', at_ms: 600 }],
    };
    await createAlertRepository(store).putEvent(event, 600);

    const asRead = JSON.stringify([await (await send(read, 'GET', '/alert-rules')).json(), await (await send(read, 'GET', `/alert-rules/${created.id}`)).json(), await (await send(read, 'GET', '/alerts')).json()]);
    expect(asRead).not.toContain('secret-token');
    expect(asRead).not.toContain('ECONNREFUSED');
    const history = (await (await send(read, 'GET', '/alerts')).json()) as { alerts: AlertEvent[] };
    expect(history.alerts[0].deliveries).toEqual([{ type: 'slack', url: 'https://hooks.slack.com/…', outcome: 'failed', at_ms: 600 }]);
    const one = (await (await send(read, 'GET', `/alert-rules/${created.id}`)).json()) as { notify: unknown };
    expect(one.notify).toEqual([{ type: 'slack', url: 'https://hooks.slack.com/…' }]);

    const asAdmin = (await (await send(admin, 'GET', '/alerts')).json()) as { alerts: AlertEvent[] };
    expect(asAdmin.alerts[0].deliveries).toEqual(event.deliveries);
  });

  it('PagerDuty and email targets: the routing key shown to a read key as its first 4 characters; an email target is not an outbound URL', async () => {
    const notify = [
      { type: 'pagerduty', routing_key: 'R0123456789abcdef0123456789ABCDE' },
      { type: 'email', to: ['oncall@example.com'] },
    ];
    const created = await send(admin, 'POST', '/alert-rules', { ...rule([]), notify });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(((await (await send(admin, 'GET', `/alert-rules/${id}`)).json()) as { notify: unknown }).notify).toEqual([
      { type: 'pagerduty', routing_key: 'R0123456789abcdef0123456789ABCDE', url: 'https://events.pagerduty.com/v2/enqueue' },
      { type: 'email', to: ['oncall@example.com'] },
    ]);
    expect(((await (await send(read, 'GET', `/alert-rules/${id}`)).json()) as { notify: unknown }).notify).toEqual([
      { type: 'pagerduty', routing_key: 'R012…', url: 'https://events.pagerduty.com/…' },
      { type: 'email', to: ['oncall@example.com'] },
    ]);
    const bad = await send(admin, 'POST', '/alert-rules', { ...rule([]), notify: [{ type: 'pagerduty', routing_key: 'short' }, { type: 'email', to: 'a@b.example\r\nBcc: x@y.example' }] });
    expect(((await bad.json()) as { issues: string[] }).issues).toEqual([
      'body.notify.0.routing_key: must be the 32-character integration key of a PagerDuty service (Events API v2)',
      'body.notify.1.to: must be a plain email address, e.g. oncall@example.com',
    ]);
  });
});
