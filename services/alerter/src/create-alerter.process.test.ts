import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertRuleSchema, createAlertRepository, type AlertRuleInput } from '../../../shared/engines/alerts/index.ts';
import { createInMemoryQueryStore, type InMemoryQueryStore, type ProjectScore } from '../../../shared/engines/alerts/testing/in-memory-query-store.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createAlerter, type Alerter } from './create-alerter.ts';

const log = createSilentLogger();
const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const MINUTE = 60_000;
const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 5, timeoutMs: 5_000 };
/** The receivers listen on loopback, which the alerter calls only when allowed (TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS=127.0.0.1). */
const outbound = { allow: createAddressMatcher(parseAddressList('127.0.0.1').list) };

/** A local HTTP receiver whose answers the test scripts: a status per request, or 'hang' (never answers). */
interface Receiver {
  url: string;
  bodies: unknown[];
  close(): Promise<void>;
}
async function startReceiver(answer: (n: number) => number | 'hang' = () => 200): Promise<Receiver> {
  const bodies: unknown[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const a = answer(bodies.length);
      if (a === 'hang') return;
      res.writeHead(a, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Pass/fail scores of one check, ended one minute before T0 (inside any window of the tests). */
function scores(passed: number, failed: number, over: Partial<ProjectScore> = {}): ProjectScore[] {
  return Array.from({ length: passed + failed }, (_, i) => ({
    schema_version: 1, unit_id: `${over.agent_version ?? 'u'}-${i}`, unit_kind: 'trace', check: 'loop_guard', check_version: 'v1', status: 'ok', value: i < passed ? 1 : 0,
    passed: i < passed, explanation: '', method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0,
    agent_name: 'booking-agent', agent_version: 'v1', environment: 'prod', service: 'svc', unit_end_time_ms: T0 - MINUTE, created_at_ms: T0 - MINUTE + 500, ...over,
  }));
}

let nextId = 0;
async function addRule(store: InMemoryQueryStore, input: AlertRuleInput): Promise<string> {
  const id = `rule-${++nextId}`;
  await createAlertRepository(store).putRule(AlertRuleSchema.parse({ ...input, id, project: 'default', created_at_ms: nextId, updated_at_ms: nextId }));
  return id;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function alerterOver(store: InMemoryQueryStore, clock: { t: number }, delivery: object = FAST_RETRY, shutdownGraceMs = 5_000): Alerter {
  const alerter = createAlerter({ store, log, intervalMs: 60_000, now: () => clock.t, delivery, shutdownGraceMs, outbound, unitLink: (id) => `http://tc.example/api/v1/units/${id}` });
  cleanups.push(() => alerter.shutdown());
  return alerter;
}

async function receiver(answer?: (n: number) => number | 'hang'): Promise<Receiver> {
  const r = await startReceiver(answer);
  cleanups.push(() => r.close());
  return r;
}

/** Evaluates once per minute for `minutes` minutes from the clock's time. */
async function everyMinute(alerter: Alerter, clock: { t: number }, minutes: number): Promise<string[]> {
  const transitions: string[] = [];
  for (let i = 0; i < minutes; i++) {
    const r = await alerter.evaluateOnce();
    transitions.push(r.notifications.map((n) => n.transition).join(',') || '-');
    clock.t += MINUTE;
  }
  return transitions;
}

const thresholdRule = (url: string, over: Partial<AlertRuleInput> = {}): AlertRuleInput =>
  ({ name: 'loop guard', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, for_evaluations: 2, min_samples: 20, notify: [{ type: 'webhook', url }], ...over }) as AlertRuleInput;

describe('createAlerter', () => {
  it('notifies once on firing, reminds after remind_every, resolves once, and records every delivery', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver();
    store.addScores(scores(70, 30));
    await addRule(store, thresholdRule(hook.url, { remind_every: '5m' }));
    const clock = { t: T0 };
    const alerter = alerterOver(store, clock);

    expect(await everyMinute(alerter, clock, 8)).toEqual(['-', 'fire', '-', '-', '-', '-', 'remind', '-']);
    store.clearScores();
    store.addScores(scores(95, 5));
    expect(await everyMinute(alerter, clock, 5)).toEqual(['-', 'resolve', '-', '-', '-']);
    await alerter.idle();

    expect(hook.bodies.map((b) => (b as { state: string }).state)).toEqual(['firing', 'firing', 'resolved']);
    expect(hook.bodies[0]).toEqual({
      rule: 'loop guard',
      state: 'firing',
      kind: 'threshold',
      check: 'loop_guard',
      summary: 'loop_guard pass rate 70.0% [60.4–78.1] over the last 15m is below 90.0% (n = 100)',
      value: 0.7,
      threshold: 0.9,
      window: '15m',
      units: Array.from({ length: 20 }, (_, i) => `u-${70 + i}`),
      fired_at: new Date(T0 + MINUTE).toISOString(),
    });
    expect(hook.bodies[2]).toMatchObject({ state: 'resolved', units: [], fired_at: new Date(T0 + MINUTE).toISOString(), summary: 'loop_guard pass rate 95.0% [88.8–97.8] over the last 15m is back at or above 90.0% (n = 100)' });

    const history = await createAlertRepository(store).listEvents({ project: 'default' });
    expect(history.events.map((e) => [e.state, e.delivery_status, e.deliveries.map((d) => [d.outcome, d.attempts, d.status])])).toEqual([
      ['resolved', 'done', [['delivered', 1, 200]]],
      ['reminder', 'done', [['delivered', 1, 200]]],
      ['firing', 'done', [['delivered', 1, 200]]],
    ]);
  });

  it('does not fire again after a restart over the same store, and the new process resolves once', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver();
    store.addScores(scores(70, 30));
    await addRule(store, thresholdRule(hook.url));
    const clock = { t: T0 };
    const first = alerterOver(store, clock);
    expect(await everyMinute(first, clock, 3)).toEqual(['-', 'fire', '-']);
    await first.shutdown();

    const second = alerterOver(store, clock);
    await second.start();
    expect(await everyMinute(second, clock, 4)).toEqual(['-', '-', '-', '-']);
    store.clearScores();
    store.addScores(scores(100, 0));
    expect(await everyMinute(second, clock, 3)).toEqual(['-', 'resolve', '-']);
    await second.idle();
    expect(hook.bodies.map((b) => (b as { state: string }).state)).toEqual(['firing', 'resolved']);
  });

  it('retries a receiver that answers 500 twice and records the third attempt as delivered', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver((n) => (n <= 2 ? 500 : 200));
    store.addScores(scores(10, 90));
    await addRule(store, thresholdRule(hook.url, { for_evaluations: 1 }));
    const alerter = alerterOver(store, { t: T0 });
    await alerter.evaluateOnce();
    await alerter.idle();
    expect(hook.bodies).toHaveLength(3);
    const [event] = (await createAlertRepository(store).listEvents({ project: 'default' })).events;
    expect(event.deliveries).toEqual([{ type: 'webhook', url: hook.url, outcome: 'delivered', attempts: 3, status: 200, at_ms: T0 }]);
  });

  it('does not retry a 4xx answer other than 408 and 429', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver(() => 404);
    store.addScores(scores(10, 90));
    await addRule(store, thresholdRule(hook.url, { for_evaluations: 1 }));
    const alerter = alerterOver(store, { t: T0 });
    await alerter.evaluateOnce();
    await alerter.idle();
    const [event] = (await createAlertRepository(store).listEvents({ project: 'default' })).events;
    expect(event.deliveries).toEqual([{ type: 'webhook', url: hook.url, outcome: 'failed', attempts: 1, status: 404, error: 'HTTP 404', at_ms: T0 }]);
  });

  it('keeps evaluating while a receiver hangs, and records the delivery as failed at shutdown', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver(() => 'hang');
    store.addScores(scores(10, 90));
    await addRule(store, thresholdRule(hook.url, { for_evaluations: 1 }));
    const clock = { t: T0 };
    const alerter = alerterOver(store, clock, { ...FAST_RETRY, timeoutMs: 600_000 }, 0);
    expect(await everyMinute(alerter, clock, 3)).toEqual(['fire', '-', '-']);
    expect(alerter.pendingNotifications()).toBe(1);
    await alerter.shutdown();
    const [event] = (await createAlertRepository(store).listEvents({ project: 'default' })).events;
    expect(event.deliveries).toEqual([{ type: 'webhook', url: hook.url, outcome: 'failed', attempts: 1, error: 'alerter stopped before delivery', at_ms: T0 + 3 * MINUTE }]);
  });

  it('sends Slack an incoming-webhook message with the same facts', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver();
    store.addScores([...scores(380, 20, { agent_version: 'v1' }), ...scores(280, 120, { agent_version: 'v2' })]);
    await addRule(store, {
      name: 'v2 vs v1', kind: 'regression', check: 'loop_guard', filters: { agent: 'booking-agent' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' },
      notify: [{ type: 'slack', url: hook.url }],
    });
    const alerter = alerterOver(store, { t: T0 });
    expect((await alerter.evaluateOnce()).notifications).toEqual([{ ruleId: expect.any(String), transition: 'fire' }]);
    await alerter.idle();
    const summary = 'version v2 of booking-agent fails loop_guard significantly more often than v1: 30.0% [25.7–34.7] vs 5.0% [3.3–7.6], n = 400 vs 400, p < 0.001';
    const units = Array.from({ length: 20 }, (_, i) => `v2-${280 + i}`);
    expect(hook.bodies).toEqual([
      {
        text: summary,
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: `:rotating_light: *Firing: v2 vs v1*\n${summary.replace('<', '&lt;')}` },
            fields: [
              { type: 'mrkdwn', text: '*Check*\nloop_guard' },
              { type: 'mrkdwn', text: '*Kind*\nregression' },
              { type: 'mrkdwn', text: '*Value*\n0.3' },
              { type: 'mrkdwn', text: '*Window*\n7d' },
              { type: 'mrkdwn', text: `*Fired at*\n${new Date(T0).toISOString()}` },
              { type: 'mrkdwn', text: '*p-value*\n&lt; 0.001' },
              { type: 'mrkdwn', text: '*n (candidate vs baseline)*\n400 vs 400' },
            ],
          },
          { type: 'context', elements: [{ type: 'mrkdwn', text: `Failing units: ${units.map((u) => `<http://tc.example/api/v1/units/${u}|${u}>`).join(', ')}` }] },
        ],
      },
    ]);
  });

  it('goes on with the other rules when one fails, and costs at most 3 store calls per rule', async () => {
    const store = createInMemoryQueryStore();
    store.addScores(scores(95, 5));
    // Rules run in creation order, so the first one meets the failing query.
    const a = await addRule(store, thresholdRule('http://127.0.0.1:9/unused', { notify: [] }));
    await addRule(store, thresholdRule('http://127.0.0.1:9/unused', { notify: [], name: 'second' }));
    const alerter = alerterOver(store, { t: T0 });
    await alerter.evaluateOnce();
    store.failNext('aggregateScores', new Error('store timeout'));
    const before = { ...store.calls };
    const report = await alerter.evaluateOnce();
    expect(report).toMatchObject({ rules: 2, evaluated: 1, failed: 1 });
    // One listing of rules, then per rule one aggregate; the failed rule records its error, the
    // other's state did not change (same streak, same verdict), so it is not written again.
    expect(store.calls.listDocs - before.listDocs).toBe(1);
    expect(store.calls.aggregateScores - before.aggregateScores).toBe(2);
    expect(store.calls.putDoc - before.putDoc).toBe(1);
    const states = await createAlertRepository(store).listStates();
    expect(states.get(a)?.last_error).toBe('store timeout');
    expect([...states.values()].filter((s) => s.rule_id !== a).map((s) => s.last_error)).toEqual([null]);
  });

  it('evaluates on its own timer once started', async () => {
    const store = createInMemoryQueryStore();
    const hook = await receiver();
    store.addScores(scores(10, 90));
    await addRule(store, thresholdRule(hook.url, { for_evaluations: 1 }));
    const alerter = createAlerter({ store, log, intervalMs: 100, now: () => T0, delivery: FAST_RETRY, outbound });
    cleanups.push(() => alerter.shutdown());
    await alerter.start();
    for (let i = 0; i < 200 && hook.bodies.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(hook.bodies).toHaveLength(1);
  });
});
