import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../../services/alerter/src/index.ts';
import { createSmtpMailer } from '../../../services/alerter/src/smtp-mailer.ts';
import { AlertRuleSchema, createAlertRepository, type AlertRuleInput } from '../../../shared/engines/alerts/index.ts';
import { createInMemoryQueryStore, type ProjectScore } from '../../../shared/engines/alerts/testing/in-memory-query-store.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';

// Issue 26: alerts page through PagerDuty (Events API v2: a trigger with a dedup key, a resolve
// with the same key) and email (SMTP with STARTTLS and authentication), each against a real
// receiver on loopback: an HTTP server that checks every event against the Events API's shape,
// and the `smtp-server` package requiring TLS and a password.

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const MINUTE = 60_000;
const ROUTING_KEY = 'R0123456789abcdef0123456789ABCDE';

interface MailSeen {
  from: string;
  to: string[];
  secure: boolean;
  user: string | undefined;
  raw: string;
}

/** PagerDuty's documented event shape (developer.pagerduty.com, Events API v2 "Send an Event"): every problem as text. */
function eventProblems(e: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const allowed = new Set(['routing_key', 'event_action', 'dedup_key', 'payload', 'images', 'links', 'client', 'client_url']);
  for (const k of Object.keys(e)) if (!allowed.has(k)) problems.push(`unknown field ${k}`);
  if (typeof e.routing_key !== 'string' || e.routing_key.length !== 32) problems.push('routing_key must be 32 characters');
  if (!['trigger', 'acknowledge', 'resolve'].includes(e.event_action as string)) problems.push('event_action');
  if (e.dedup_key !== undefined && (typeof e.dedup_key !== 'string' || e.dedup_key.length > 255)) problems.push('dedup_key');
  if (e.event_action !== 'trigger') {
    if (typeof e.dedup_key !== 'string') problems.push('dedup_key is required to resolve');
    return problems;
  }
  const p = e.payload as Record<string, unknown> | undefined;
  if (!p) return [...problems, 'payload is required to trigger'];
  if (typeof p.summary !== 'string' || p.summary.length === 0 || p.summary.length > 1024) problems.push('payload.summary');
  if (typeof p.source !== 'string' || p.source.length === 0) problems.push('payload.source');
  if (!['critical', 'error', 'warning', 'info'].includes(p.severity as string)) problems.push('payload.severity');
  if (p.timestamp !== undefined && Number.isNaN(Date.parse(p.timestamp as string))) problems.push('payload.timestamp');
  for (const k of ['component', 'group', 'class']) if (p[k] !== undefined && typeof p[k] !== 'string') problems.push(`payload.${k}`);
  if (p.custom_details !== undefined && (typeof p.custom_details !== 'object' || p.custom_details === null)) problems.push('payload.custom_details');
  if (e.links !== undefined && (!Array.isArray(e.links) || e.links.some((l: { href?: unknown }) => typeof l.href !== 'string'))) problems.push('links');
  return problems;
}

let pagerDuty: Server;
let pagerDutyUrl: string;
const events: Array<Record<string, unknown>> = [];
let smtp: SMTPServer;
let smtpPort: number;
const mails: MailSeen[] = [];
let certDir: string;

beforeAll(async () => {
  pagerDuty = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const problems = req.headers['content-type'] === 'application/json' ? eventProblems(event) : ['content-type'];
      if (problems.length > 0) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors: problems }));
        return;
      }
      events.push(event);
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: event.dedup_key }));
    });
  });
  await new Promise<void>((resolve) => pagerDuty.listen(0, '127.0.0.1', resolve));
  pagerDutyUrl = `http://127.0.0.1:${(pagerDuty.address() as AddressInfo).port}/v2/enqueue`;

  certDir = mkdtempSync(join(tmpdir(), 'tc-smtp-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
  smtp = new SMTPServer({
    key: readFileSync(join(certDir, 'key.pem')),
    cert: readFileSync(join(certDir, 'cert.pem')),
    authMethods: ['PLAIN', 'LOGIN'],
    // Like a real submission server: no password over plain text, no message without a password.
    allowInsecureAuth: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'alerts' && auth.password === 's3cret pass') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => pagerDuty.close(() => resolve()));
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  rmSync(certDir, { recursive: true, force: true });
});

/** The text of a single-part message, quoted-printable decoded. */
function bodyText(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/=\r?\n/g, '');
  const bytes = Buffer.from(body.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8').replace(/\r\n/g, '\n');
}

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
      sendMail: createSmtpMailer({ url: `smtp://alerts:s3cret%20pass@127.0.0.1:${smtpPort}`, from: 'tracecheck <alerts@tc.example>', tls: 'starttls', caFile: join(certDir, 'cert.pem') }),
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
    const subjects = mails.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]);
    expect(subjects).toEqual(['[tracecheck] Firing: loop guard Bcc: attacker@evil.example', '[tracecheck] Resolved: loop guard Bcc: attacker@evil.example']);
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
    for (const sendMail of [createSmtpMailer({ url: `smtp://alerts:wrong@127.0.0.1:${smtpPort}`, from: 'a@tc.example', tls: 'starttls', caFile: join(certDir, 'cert.pem') }), undefined]) {
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
