import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../../services/alerter/src/index.ts';
import { createSmtpMailer } from '../../../services/alerter/src/smtp-mailer.ts';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../../shared/adapters/store/index.ts';
import { AlertRuleSchema, createAlertRepository, type AlertRuleInput } from '../../../shared/engines/alerts/index.ts';
import { createPrng, type Random } from '../../../shared/runtime/flow/index.ts';
import { createAddressMatcher, parseAddressList } from '../../../shared/runtime/http/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { mailSubject, startPagerDutyReceiver, startSmtpReceiver, type PagerDutyReceiver, type SmtpReceiver } from '../../helpers/alert-receivers.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createTestUnit } from '../../helpers/unit-factory.ts';
import { CLICKHOUSE_URL, REQUEST_TIMEOUT_MS, createAdminClient, randomDatabaseName } from '../store/clickhouse-test-server.ts';

// Issue 26, alerts on unit metrics, end to end on both real stores (DuckDB; ClickHouse 18.16 in a
// database of this file's own) with real receivers on
// loopback: a p95 duration rule pages `warning`, then `critical` (the same PagerDuty incident, a
// new severity), then resolves; v2 at 1.5× v1's latency fires `metric_regression` once while an
// A/A pair of versions with the same latency does not.

const log = createSilentLogger();
const database = randomDatabaseName('tc_metric_alerts');
const admin = createAdminClient();
const stores: Array<[string, () => Store]> = [
  ['duckdb', () => createDuckDbStore({ path: ':memory:', log })],
  ['clickhouse 18.16', () => createClickHouseStore({ url: CLICKHOUSE_URL, database, log, requestTimeoutMs: REQUEST_TIMEOUT_MS })],
];
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const ROUTING_KEY = 'R0123456789abcdef0123456789ABCDE';
let pd: PagerDutyReceiver;
let smtp: SmtpReceiver;

beforeAll(async () => {
  pd = await startPagerDutyReceiver();
  smtp = await startSmtpReceiver();
});

afterAll(async () => {
  await pd.close();
  await smtp.close();
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

/** A log-normal latency around `medianMs` (σ = 0.5 on the log scale). */
function latency(random: Random, medianMs: number): number {
  const u = 1 - random();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return Math.round(medianMs * Math.exp(0.5 * z));
}

describe.each(stores)('metric alerts on %s', (_label, create) => {
  let store: Store;
  beforeAll(async () => {
    store = create();
    await store.start();
  });
  afterAll(async () => {
    await store.shutdown();
  });

  let n = 0;
  /** Units of `agent`/`version` that ended at `endMs`, with these durations. */
  function unitsOf(agent: string, version: string, endMs: number, durations: readonly number[]): Unit[] {
    return durations.map((d) => {
      n++;
      return createTestUnit(n, { agent_name: agent, agent_version: version, unit_id: `${agent}-${version}-${n}`, trace_ids: [`t${n}`], start_time_ms: endMs - d, end_time_ms: endMs, project: 'shop', duration_ms: d, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: 0.001 });
    });
  }

  async function putRule(id: string, input: AlertRuleInput): Promise<void> {
    await createAlertRepository(store).putRule(AlertRuleSchema.parse({ ...input, id, project: 'shop', created_at_ms: 1, updated_at_ms: 1 }));
  }

  function alerterAt(clock: { t: number }): ReturnType<typeof createAlerter> {
    return createAlerter({
      store,
      log,
      intervalMs: 60_000,
      now: () => clock.t,
      outbound: { allow: createAddressMatcher(parseAddressList('127.0.0.1').list) },
      delivery: { initialDelayMs: 1, maxDelayMs: 5, timeoutMs: 10_000 },
      sendMail: createSmtpMailer({ url: `smtp://alerts:s3cret%20pass@127.0.0.1:${smtp.port}`, from: 'tracecheck <alerts@tc.example>', tls: 'starttls', caFile: smtp.certFile }),
    });
  }

  describe('metric_threshold: p95 duration_ms with warning and critical levels', () => {
    it('pages warning, then critical on the same incident, then resolves: three notifications on PagerDuty and on SMTP', async () => {
      await putRule('p95', {
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
      const eventsBefore = pd.events.length;
      const mailsBefore = smtp.mails.length;
      const clock = { t: T0 };
      const alerter = alerterAt(clock);
      const transitions: string[] = [];
      // Each phase is 20 minutes after the last, so the 15-minute window holds only its own units;
      // every phase is evaluated twice: a level is notified once, however long it lasts.
      const phases = [2_000, 6_000, 9_000, 1_000];
      try {
        for (const d of phases) {
          await store.writeUnits(unitsOf('booking', 'v1', clock.t - MINUTE, Array.from({ length: 20 }, (_, i) => d + i * 10)));
          for (let k = 0; k < 2; k++) {
            const r = await alerter.evaluateOnce();
            transitions.push(r.notifications.map((x) => x.transition).join(',') || '-');
            clock.t += MINUTE;
          }
          clock.t += 20 * MINUTE;
        }
        await alerter.idle();
      } finally {
        await alerter.shutdown();
      }
      expect(transitions).toEqual(['-', '-', 'fire', '-', 'fire', '-', 'resolve', '-']);

      const fired = T0 + 2 * MINUTE + 20 * MINUTE;
      const dedup = `tracecheck:shop:p95:${fired}`;
      expect(pd.events.slice(eventsBefore).map((e) => [e.event_action, e.dedup_key, (e.payload as { severity?: string } | undefined)?.severity, (e.payload as { summary?: string } | undefined)?.summary])).toEqual([
        ['trigger', dedup, 'warning', 'p95 duration_ms of agent=booking, environment=prod over the last 15m is 6.2 s, above the warning level of 5.0 s (n = 20)'],
        ['trigger', dedup, 'critical', 'p95 duration_ms of agent=booking, environment=prod over the last 15m is 9.2 s, above the critical level of 8.0 s (n = 20)'],
        ['resolve', dedup, undefined, undefined],
      ]);
      expect(smtp.mails.slice(mailsBefore).map((m) => [m.to, m.secure, mailSubject(m.raw)])).toEqual([
        [['oncall@example.com'], true, '[tracecheck] Firing (warning): rule "booking p95 latency"'],
        [['oncall@example.com'], true, '[tracecheck] Firing (critical): rule "booking p95 latency"'],
        [['oncall@example.com'], true, '[tracecheck] Resolved: rule "booking p95 latency"'],
      ]);
      const history = await createAlertRepository(store).listEvents({ project: 'shop', ruleId: 'p95' });
      expect(history.events.map((e) => [e.state, e.payload.level, e.payload.threshold, e.deliveries.map((d) => d.outcome)])).toEqual([
        ['resolved', undefined, 5_000, ['delivered', 'delivered']],
        ['firing', 'critical', 8_000, ['delivered', 'delivered']],
        ['firing', 'warning', 5_000, ['delivered', 'delivered']],
      ]);
    });
  });

  describe('metric_regression: v2 against v1 on mean duration_ms', () => {
    it('fires once when v2 is 1.5× slower; an A/A pair with the same latency stays quiet', async () => {
      const rule = (agent: string): AlertRuleInput => ({
        name: `${agent} v2 slower`,
        kind: 'metric_regression',
        metric: 'duration_ms',
        filters: { agent },
        baseline: { agent_version: 'v1' },
        candidate: { agent_version: 'v2' },
        alpha: 0.05,
        min_samples: 30,
        window: '1d',
        notify: [{ type: 'pagerduty', routing_key: ROUTING_KEY, url: pd.url }],
      });
      await putRule('ab', rule('checkout'));
      await putRule('aa', rule('search'));
      const before = pd.events.length;
      const random = createPrng(26);
      const clock = { t: T0 + 2 * 86_400_000 };
      const alerter = alerterAt(clock);
      const fires: Record<string, number> = { ab: 0, aa: 0 };
      try {
        // 40 evaluations, 10 units per version and agent before each (400 per arm at the end).
        for (let minute = 0; minute < 40; minute++) {
          const batch = (median: number): number[] => Array.from({ length: 10 }, () => latency(random, median));
          const end = clock.t - 1_000;
          await store.writeUnits([...unitsOf('checkout', 'v1', end, batch(2_000)), ...unitsOf('checkout', 'v2', end, batch(3_000)), ...unitsOf('search', 'v1', end, batch(2_000)), ...unitsOf('search', 'v2', end, batch(2_000))]);
          const r = await alerter.evaluateOnce();
          for (const x of r.notifications) if (x.transition === 'fire' && (x.ruleId === 'ab' || x.ruleId === 'aa')) fires[x.ruleId]++;
          expect(r.notifications.filter((x) => x.transition === 'resolve' && (x.ruleId === 'ab' || x.ruleId === 'aa'))).toEqual([]);
          clock.t += MINUTE;
        }
        await alerter.idle();
      } finally {
        await alerter.shutdown();
      }
      expect(fires).toEqual({ ab: 1, aa: 0 });
      const triggers = pd.events.slice(before);
      expect(triggers.map((e) => [e.event_action, (e.payload as { class: string }).class])).toEqual([['trigger', 'metric_regression']]);
      expect((triggers[0].payload as { summary: string }).summary).toMatch(/^version v2 of checkout has a significantly higher mean duration_ms than v1: \d\.\d s vs \d\.\d s, n = \d+ vs \d+, p (<|=) 0\.0\d+$/);
    });
  });
});
