import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../../services/alerter/src/index.ts';
import { createSmtpMailer } from '../../../services/alerter/src/smtp-mailer.ts';
import { AlertRuleSchema, createAlertRepository, type AlertRuleInput } from '../../../shared/engines/alerts/index.ts';
import { createInMemoryQueryStore, type ProjectScore } from '../../../shared/engines/alerts/testing/in-memory-query-store.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { mailBodyText, mailSubject, startPagerDutyReceiver, startSmtpReceiver, type MailSeen, type PagerDutyReceiver, type SmtpReceiver } from '../../helpers/alert-receivers.ts';

// Issue 26: alerts page through PagerDuty (Events API v2: a trigger with a dedup key, a resolve
// with the same key) and email (SMTP with STARTTLS and authentication), each against a real
// receiver on loopback: an HTTP server that checks every event against the Events API's shape,
// and the `smtp-server` package requiring TLS and a password.

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const MINUTE = 60_000;
const ROUTING_KEY = 'R0123456789abcdef0123456789ABCDE';

let pd: PagerDutyReceiver;
let pagerDutyUrl: string;
let events: Array<Record<string, unknown>>;
let smtpReceiver: SmtpReceiver;
let smtpPort: number;
let certFile: string;
let mails: MailSeen[];

beforeAll(async () => {
  pd = await startPagerDutyReceiver();
  pagerDutyUrl = pd.url;
  events = pd.events;
  smtpReceiver = await startSmtpReceiver();
  smtpPort = smtpReceiver.port;
  certFile = smtpReceiver.certFile;
  mails = smtpReceiver.mails;
});

afterAll(async () => {
  await pd.close();
  await smtpReceiver.close();
});

const bodyText = mailBodyText;

function scores(passed: number, failed: number): ProjectScore[] {
  return Array.from({ length: passed + failed }, (_, i) => ({
    schema_version: 1, unit_id: `u-${i}`, unit_kind: 'trace', check: 'loop_guard', check_version: 'v1', status: 'ok', value: i < passed ? 1 : 0,
    passed: i < passed, explanation: '', method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0,
    agent_name: 'booking-agent', agent_version: 'v1', environment: 'prod', service: 'svc', unit_end_time_ms: T0 - MINUTE, created_at_ms: T0 - MINUTE + 500, project: 'shop',
  }));
}

describe('alerts through PagerDuty and email, real receivers on loopback', () => {
  it('one trigger and one resolve with the same dedup key; one email on firing and one on resolution, over STARTTLS with a password', async () => {
    const store = createInMemoryQueryStore();
    store.addScores(scores(70, 30));
    const input = {
      name: 'loop guard\r\nBcc: attacker@evil.example',
      kind: 'threshold',
      check: 'loop_guard',
      window: '15m',
      threshold: 0.9,
      for_evaluations: 1,
      min_samples: 20,
      notify: [
        { type: 'pagerduty', routing_key: ROUTING_KEY, url: pagerDutyUrl },
        { type: 'email', to: ['oncall@example.com', 'lead@example.com'] },
      ],
    } as AlertRuleInput;
    await createAlertRepository(store).putRule(AlertRuleSchema.parse({ ...input, id: 'rule-pd', project: 'shop', created_at_ms: 1, updated_at_ms: 1 }));
    const clock = { t: T0 };
    const alerter = createAlerter({
      store,
      log: createSilentLogger(),
      intervalMs: 60_000,
      now: () => clock.t,
      delivery: { initialDelayMs: 1, maxDelayMs: 5, timeoutMs: 10_000 },
      outbound: { allow: createAddressMatcher(parseAddressList('127.0.0.1').list) },
      unitLink: (id) => `http://tc.example/units/${id}`,
      sendMail: createSmtpMailer({ url: `smtp://alerts:s3cret%20pass@127.0.0.1:${smtpPort}`, from: 'tracecheck <alerts@tc.example>', tls: 'starttls', caFile: certFile }),
    });
    try {
      expect((await alerter.evaluateOnce()).notifications.map((n) => n.transition)).toEqual(['fire']);
      clock.t += MINUTE;
      expect((await alerter.evaluateOnce()).notifications).toEqual([]);
      store.clearScores();
      store.addScores(scores(95, 5));
      clock.t += MINUTE;
      expect((await alerter.evaluateOnce()).notifications.map((n) => n.transition)).toEqual(['resolve']);
      await alerter.idle();
    } finally {
      await alerter.shutdown();
    }

    const dedup = `tracecheck:shop:rule-pd:${T0}`;
    expect(events).toEqual([
      {
        routing_key: ROUTING_KEY,
        event_action: 'trigger',
        dedup_key: dedup,
        payload: {
          summary: 'loop_guard pass rate 70.0% [60.4–78.1] over the last 15m is below 90.0% (n = 100)',
          source: 'tracecheck',
          severity: 'critical',
          timestamp: new Date(T0).toISOString(),
          component: 'loop_guard',
          class: 'threshold',
          custom_details: {
            rule: 'loop guard\r\nBcc: attacker@evil.example',
            kind: 'threshold',
            value: 0.7,
            threshold: 0.9,
            window: '15m',
            fired_at: new Date(T0).toISOString(),
            units: Array.from({ length: 20 }, (_, i) => `u-${70 + i}`),
          },
        },
        links: Array.from({ length: 5 }, (_, i) => ({ href: `http://tc.example/units/u-${70 + i}`, text: `Failing unit u-${70 + i}` })),
        client: 'tracecheck',
      },
      { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: dedup, client: 'tracecheck' },
    ]);

    expect(mails.map((m) => [m.from, m.to, m.secure, m.user])).toEqual([
      ['alerts@tc.example', ['oncall@example.com', 'lead@example.com'], true, 'alerts'],
      ['alerts@tc.example', ['oncall@example.com', 'lead@example.com'], true, 'alerts'],
    ]);
    const subjects = mails.map((m) => mailSubject(m.raw));
    expect(subjects).toEqual(['[tracecheck] Firing: rule "loop guard\\r\\nBcc: attacker@evil.example"', '[tracecheck] Resolved: rule "loop guard\\r\\nBcc: attacker@evil.example"']);
    for (const m of mails) expect(m.raw).not.toMatch(/^Bcc:/im);
    const firing = bodyText(mails[0].raw);
    expect(firing).toContain('loop_guard pass rate 70.0% [60.4–78.1] over the last 15m is below 90.0% (n = 100)');
    expect(firing).toContain('Rule: loop guard Bcc: attacker@evil.example\n');
    expect(firing).toContain('Failing units:\n  http://tc.example/units/u-70\n');

    const history = await createAlertRepository(store).listEvents({ project: 'shop' });
    expect(history.events.map((e) => [e.state, e.deliveries.map((d) => [d.type, d.url, d.outcome, d.status])])).toEqual([
      ['resolved', [['pagerduty', pagerDutyUrl, 'delivered', 202], ['email', 'mailto:oncall@example.com,lead@example.com', 'delivered', 250]]],
      ['firing', [['pagerduty', pagerDutyUrl, 'delivered', 202], ['email', 'mailto:oncall@example.com,lead@example.com', 'delivered', 250]]],
    ]);
  });

  it('a wrong SMTP password fails once, permanently, with the server’s reason; no SMTP configured says so', async () => {
    const store = createInMemoryQueryStore();
    store.addScores(scores(70, 30));
    const rule = { name: 'r', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, for_evaluations: 1, min_samples: 20, notify: [{ type: 'email', to: 'oncall@example.com' }] } as AlertRuleInput;
    await createAlertRepository(store).putRule(AlertRuleSchema.parse({ ...rule, id: 'rule-mail', project: 'shop', created_at_ms: 1, updated_at_ms: 1 }));
    for (const sendMail of [createSmtpMailer({ url: `smtp://alerts:wrong@127.0.0.1:${smtpPort}`, from: 'a@tc.example', tls: 'starttls', caFile: certFile }), undefined]) {
      const alerter = createAlerter({ store, log: createSilentLogger(), intervalMs: 60_000, now: () => T0, delivery: { initialDelayMs: 1, maxDelayMs: 5 }, ...(sendMail ? { sendMail } : {}) });
      await createAlertRepository(store).putState('shop', { rule_id: 'rule-mail', state: 'ok', consecutive_bad: 0, consecutive_good: 0, fired_at_ms: null, last_notified_at_ms: null, last_value: null, last_evaluated_at_ms: null, last_error: null }, T0);
      await alerter.evaluateOnce();
      await alerter.idle();
      await alerter.shutdown();
    }
    const history = await createAlertRepository(store).listEvents({ project: 'shop' });
    const deliveries = history.events.filter((e) => e.rule_id === 'rule-mail').map((e) => e.deliveries.map((d) => [d.outcome, d.attempts, d.status, d.error]));
    expect(deliveries.sort((a, b) => String(a[0][3]).localeCompare(String(b[0][3])))).toEqual([
      [['failed', 1, undefined, 'no SMTP server configured (TRACECHECK_SMTP_URL)']],
      [['failed', 1, 535, 'SMTP 535: Invalid login: 535 Invalid username or password']],
    ]);
  });
});
