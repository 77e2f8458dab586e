import { randomUUID } from 'node:crypto';
import { context, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTracer } from '../helpers/agent-runs.ts';
import { mailSubject, startPagerDutyReceiver, startSmtpReceiver, type PagerDutyReceiver, type SmtpReceiver } from '../helpers/alert-receivers.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// Issue 26, alerts on unit metrics end to end in Kafka mode: runs sent through the real OTel SDK →
// collector → Kafka (this file's topics and groups) → assembler → scorer → ClickHouse 18.16 (its own
// database) → alerter → a PagerDuty-shaped HTTP receiver and an SMTP server (STARTTLS, auth) on
// loopback. The runs carry their own timestamps in the past; the alerter's clock is moved from one
// phase to the next, so each 15-minute window holds one phase's runs only:
//   A: p95 6 s → warning; B: p95 9 s → critical; C: 1 s → resolved (three notifications each side);
//   then no_data: the window after C is empty → fires once; runs arrive again → resolves once.

const MINUTE = 60_000;
const ROUTING_KEY = 'R0123456789abcdef0123456789ABCDE';
const R = Date.now();
const database = uniqueName('e2e_metric_alerts');

describe('metric alerts end to end: Kafka + ClickHouse 18.16', () => {
  let h: Harness;
  let pd: PagerDutyReceiver;
  let smtp: SmtpReceiver;
  let offsetMs = -99 * MINUTE;
  beforeAll(async () => {
    pd = await startPagerDutyReceiver();
    smtp = await startSmtpReceiver();
    h = await startPipeline(
      {
        TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','),
        TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(),
        TRACECHECK_CLICKHOUSE_DATABASE: database,
        TRACECHECK_CHECKS: 'loop_guard',
        TRACECHECK_ALERT_INTERVAL_MS: '200',
        TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
        TRACECHECK_SMTP_URL: `smtp://alerts:s3cret%20pass@127.0.0.1:${smtp.port}`,
        TRACECHECK_SMTP_FROM: 'tracecheck <alerts@tc.example>',
        TRACECHECK_SMTP_CA_FILE: smtp.certFile,
      },
      { alerterNow: () => Date.now() + offsetMs },
    );
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
    await pd?.close();
    await smtp?.close();
    await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' }).catch(() => undefined);
  });

  /** `durations.length` runs of booking v1 in prod that ended at `endMs`, one model call each, through the OTel SDK. */
  async function sendRuns(endMs: number, durations: readonly number[]): Promise<void> {
    await withTracer({ collectorUrl: h.pipeline.collectorUrl() }, (tracer) => {
      for (const d of durations) {
        const common = { 'gen_ai.agent.name': 'booking', 'gen_ai.agent.version': 'v1', 'gen_ai.conversation.id': randomUUID() };
        const root = tracer.startSpan('invoke_agent booking', { startTime: endMs - d, attributes: { ...common, 'gen_ai.operation.name': 'invoke_agent' } });
        const ctx = trace.setSpan(context.active(), root);
        const call = tracer.startSpan('chat booking-model', { startTime: endMs - d + 10, attributes: { ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'booking-model', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10 } }, ctx);
        call.end(endMs - 10);
        root.end(endMs);
      }
      return Promise.resolve();
    });
  }

  /** Waits until the store holds `n` runs that ended in [from, to). */
  async function stored(from: number, to: number, n: number): Promise<void> {
    await waitFor(
      async () => {
        const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/metrics/series?metric=volume&stat=count&bucket=1h&from=${from}&to=${to}`);
        const body = (await res.json()) as { points: Array<{ units: number }> };
        return body.points.reduce((s, p) => s + p.units, 0) === n;
      },
      { timeoutMs: 120_000, intervalMs: 250, description: `${n} runs stored` },
    );
  }

  async function putRule(rule: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/alert-rules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
    expect(res.status, await res.clone().text()).toBe(201);
  }

  const wait = (what: string, ok: () => boolean) => waitFor(() => ok(), { timeoutMs: 60_000, intervalMs: 100, description: what });

  it('p95 latency: warning, critical, resolved (three notifications on PagerDuty and SMTP); no_data fires once and resolves once', async () => {
    const twenty = (ms: number): number[] => Array.from({ length: 20 }, (_, i) => ms + i * 10);
    // Phase A: ends at R − 100 min; the alerter's clock at R − 99 min.
    await sendRuns(R - 100 * MINUTE, twenty(6_000));
    await stored(R - 101 * MINUTE, R - 99 * MINUTE, 20);
    await putRule({
      name: 'booking p95 latency',
      kind: 'metric_threshold',
      filters: { agent: 'booking', environment: 'prod' },
      metric: 'duration_ms',
      stat: 'p95',
      window: '15m',
      warning: 5_000,
      critical: 8_000,
      notify: [
        { type: 'pagerduty', routing_key: ROUTING_KEY, url: pd.url },
        { type: 'email', to: 'oncall@example.com' },
      ],
    });
    await wait('warning', () => pd.events.length === 1 && smtp.mails.length === 1);
    // Phase B arrives first (outside the current window), then the clock moves to it.
    await sendRuns(R - 80 * MINUTE, twenty(9_000));
    await stored(R - 81 * MINUTE, R - 79 * MINUTE, 20);
    offsetMs = -79 * MINUTE;
    await wait('critical', () => pd.events.length === 2 && smtp.mails.length === 2);
    await sendRuns(R - 60 * MINUTE, twenty(1_000));
    await stored(R - 61 * MINUTE, R - 59 * MINUTE, 20);
    offsetMs = -59 * MINUTE;
    await wait('resolved', () => pd.events.length === 3 && smtp.mails.length === 3);

    const dedup = pd.events[0].dedup_key;
    expect(pd.events.map((e) => [e.event_action, e.dedup_key, (e.payload as { severity?: string } | undefined)?.severity])).toEqual([
      ['trigger', dedup, 'warning'],
      ['trigger', dedup, 'critical'],
      ['resolve', dedup, undefined],
    ]);
    expect(smtp.mails.map((m) => [m.to, m.secure, mailSubject(m.raw)])).toEqual([
      [['oncall@example.com'], true, '[tracecheck] Firing (warning): rule "booking p95 latency"'],
      [['oncall@example.com'], true, '[tracecheck] Firing (critical): rule "booking p95 latency"'],
      [['oncall@example.com'], true, '[tracecheck] Resolved: rule "booking p95 latency"'],
    ]);

    // no_data: created while phase C's runs are in its window; the clock then moves past them.
    await putRule({ name: 'booking silent', kind: 'no_data', window: '15m', filters: { agent: 'booking', environment: 'prod' }, notify: [{ type: 'pagerduty', routing_key: ROUTING_KEY, url: pd.url }] });
    offsetMs = -30 * MINUTE;
    await wait('no_data fired', () => pd.events.length === 4);
    await sendRuns(R - 25 * MINUTE, [1_000]);
    await stored(R - 26 * MINUTE, R - 24 * MINUTE, 1);
    offsetMs = -24 * MINUTE;
    await wait('no_data resolved', () => pd.events.length === 5);
    // A few more evaluations: nothing else is sent.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(pd.events.slice(3).map((e) => [e.event_action, (e.payload as { class?: string } | undefined)?.class])).toEqual([
      ['trigger', 'no_data'],
      ['resolve', undefined],
    ]);
    expect(pd.events).toHaveLength(5);
    expect(smtp.mails).toHaveLength(3);
  });
});
