import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertPayload } from '../../shared/engines/alerts/index.ts';
import { runsOf, sendRuns } from '../helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// The product's promise end to end, in both modes: agents instrumented with the real OTel SDK send
// runs with an ingest key; v2 of booking-agent loops far more often than v1, so the regression rule
// fires exactly once at a webhook with both rates, intervals, the p-value and failing units; 5% vs
// 7% does not fire; after v2 is fixed, exactly one "resolved" arrives. The alerter's clock is moved
// forward an hour for the fix, so that the bad runs leave the rule's one-hour window.

interface Received {
  body: AlertPayload;
  at: number;
}

function webhookReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertPayload, at: Date.now() });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received })));
}

const MODES = [
  { name: 'embedded (in-process bus + DuckDB)', env: (): Record<string, string> => ({}) },
  {
    name: 'Kafka + ClickHouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_alerts') }),
  },
];

for (const mode of MODES) {
  describe(`regression alerts end to end: ${mode.name}`, () => {
    let h: Harness;
    let hook: Awaited<ReturnType<typeof webhookReceiver>>;
    let offsetMs = 0;
    const env = mode.env();
    beforeAll(async () => {
      hook = await webhookReceiver();
      // The test's receivers listen on loopback, which the alerter calls only when allowed.
      h = await startPipeline({ ...env, TRACECHECK_CHECKS: 'loop_guard', TRACECHECK_ALERT_INTERVAL_MS: '200', TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '127.0.0.1' }, { alerterNow: () => Date.now() + offsetMs });
    });
    afterAll(async () => {
      await h?.stop();
      await new Promise((r) => hook?.server.close(r));
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });

    it('fires once with the facts, stays quiet on noise, resolves once, and keeps projects apart', async () => {
      const api = h.pipeline.apiUrl();
      const keyring = h.pipeline.keyring!;
      const ingest = (await keyring.create('shop', 'ingest')).key;
      const admin = (await keyring.create('shop', 'admin')).key;
      const outsider = (await keyring.create('other', 'read')).key;
      const as = (key: string) => ({ Authorization: `Bearer ${key}` });
      const getJson = async <T>(path: string, key = admin): Promise<T> => {
        const res = await fetch(`${api}${path}`, { headers: as(key) });
        expect(res.status).toBe(200);
        return (await res.json()) as T;
      };
      const scored = async (n: number): Promise<void> => {
        await waitFor(
          async () => {
            const s = await getJson<{ checks: Array<{ check: string; n: number }> }>('/api/v1/checks/summary?from=0');
            return s.checks.find((c) => c.check === 'loop_guard')?.n === n;
          },
          { timeoutMs: 120_000, intervalMs: 250, description: `${n} loop_guard scores` },
        );
      };

      // Spans without the ingest key are refused once keys exist.
      const refused = await fetch(`${h.pipeline.collectorUrl()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);

      const createRule = async (rule: Record<string, unknown>): Promise<string> => {
        const res = await fetch(`${api}/api/v1/alert-rules`, { method: 'POST', headers: { ...as(admin), 'content-type': 'application/json' }, body: JSON.stringify(rule) });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      };
      const regression = { kind: 'regression', check: 'loop_guard', alpha: 0.05, min_samples: 30, window: '1h', notify: [{ type: 'webhook', url: hook.url }] };
      const bookingRule = await createRule({ ...regression, name: 'booking v2 vs v1', baseline: { agent: 'booking-agent', agent_version: 'v1' }, candidate: { agent: 'booking-agent', agent_version: 'v2' } });
      const searchRule = await createRule({ ...regression, name: 'search b vs a', baseline: { agent: 'search-agent', agent_version: 'a' }, candidate: { agent: 'search-agent', agent_version: 'b' } });

      // Phase 1: booking v1 fails 5% (20/400), v2 30% (120/400); search a 5% (20/400), b 7% (28/400).
      const opts = { collectorUrl: h.pipeline.collectorUrl(), headers: as(ingest) };
      // v1 has been in production for a while (all scored) when v2 starts.
      await sendRuns(runsOf('booking-agent', 'v1', 400, 20), opts);
      await scored(400);
      const v2Runs = runsOf('booking-agent', 'v2', 400, 120);
      const v2Ids = await sendRuns(v2Runs, opts);
      await sendRuns([...runsOf('search-agent', 'a', 400, 20), ...runsOf('search-agent', 'b', 400, 28)], opts);
      await scored(1600);
      const phase1End = Date.now();

      const firing = await waitFor(() => hook.received.find((r) => r.body.rule === 'booking v2 vs v1' && r.body.state === 'firing'), { timeoutMs: 30_000, description: 'the firing webhook' });
      const v2Looping = new Set(v2Ids.filter((_, i) => v2Runs[i].loops));
      // The rule is evaluated while v2's runs stream in, so it fires as soon as the evidence is
      // enough (the always-valid test allows looking every time), usually before all 400 are scored.
      const { baseline, candidate } = firing.body;
      expect(firing.body).toMatchObject({
        rule: 'booking v2 vs v1',
        state: 'firing',
        kind: 'regression',
        check: 'loop_guard',
        baseline: { filters: { agent: 'booking-agent', agent_version: 'v1' }, n: 400, failed: 20, failure_rate: 0.05 },
        candidate: { filters: { agent: 'booking-agent', agent_version: 'v2' } },
        window: '1h',
      });
      expect(candidate!.n).toBeGreaterThanOrEqual(30);
      // How many are in at the first evaluation that sees enough depends on how fast they are
      // scored; that the test needs at most ~200 per arm is shown by the simulations in shared/engines/stats.
      expect(candidate!.n).toBeLessThanOrEqual(400);
      expect(candidate!.failure_rate).toBe(candidate!.failed / candidate!.n);
      expect(firing.body.value).toBe(candidate!.failure_rate);
      expect(candidate!.interval[0]).toBeLessThan(candidate!.failure_rate!);
      expect(candidate!.interval[1]).toBeGreaterThan(candidate!.failure_rate!);
      expect(baseline!.interval).toEqual([expect.closeTo(0.0327, 3), expect.closeTo(0.0758, 3)]);
      expect(firing.body.p_value).toBeLessThanOrEqual(0.05);
      // Scoring goes on while the notification is built, so there may be more failing units than counted.
      expect(firing.body.units.length).toBeGreaterThanOrEqual(Math.min(20, candidate!.failed));
      expect(firing.body.units.length).toBeLessThanOrEqual(20);
      expect(firing.body.units.every((id) => v2Looping.has(id))).toBe(true);
      const pct = (x: number): string => (100 * x).toFixed(1);
      expect(firing.body.summary).toContain(
        `fails loop_guard significantly more often than v1: ${pct(candidate!.failure_rate!)}% [${pct(candidate!.interval[0])}–${pct(candidate!.interval[1])}] vs 5.0% [3.3–7.6], n = ${candidate!.n} vs 400`,
      );

      // The comparison endpoint agrees.
      const cmp = await getJson<{ comparisons: Array<{ verdict: string; a: { n: number; passed: number }; b: { n: number; passed: number }; test: string }> }>(
        '/api/v1/compare?check=loop_guard&agent=booking-agent&a.agent_version=v1&b.agent_version=v2',
      );
      expect(cmp.comparisons[0]).toMatchObject({ verdict: 'worse', test: 'two-proportion z', a: { n: 400, passed: 380 }, b: { n: 400, passed: 280 } });

      // Many more evaluations: still one firing, and nothing for 5% vs 7%.
      const evaluatedSince = async (t: number, times: number): Promise<void> => {
        await waitFor(
          async () => {
            const rules = await getJson<{ rules: Array<{ id: string; status: { last_evaluated_at_ms: number | null } | null }> }>('/api/v1/alert-rules');
            return rules.rules.every((r) => (r.status?.last_evaluated_at_ms ?? 0) >= t + times * 200);
          },
          { timeoutMs: 30_000, description: `${times} more evaluations` },
        );
      };
      await evaluatedSince(Date.now() + offsetMs, 5);
      expect(hook.received.map((r) => [r.body.rule, r.body.state])).toEqual([['booking v2 vs v1', 'firing']]);

      // Projects are walls: another project's key sees none of this, no key gets 401.
      expect(await getJson('/api/v1/alert-rules', outsider)).toEqual({ rules: [] });
      expect((await fetch(`${api}/api/v1/units/${v2Ids[0]}`, { headers: as(outsider) })).status).toBe(404);
      expect((await fetch(`${api}/api/v1/units/${v2Ids[0]}`, { headers: as(admin) })).status).toBe(200);
      expect((await fetch(`${api}/api/v1/scores`)).status).toBe(401);

      // Phase 2: v2 is fixed (5%). An hour later on the alerter's clock, only the new runs are in the window.
      while (Date.now() <= phase1End + 1_000) await sleep(50);
      await sendRuns([...runsOf('booking-agent', 'v1', 400, 20), ...runsOf('booking-agent', 'v2', 400, 20)], opts);
      await scored(2400);
      offsetMs = phase1End + 3_600_000 + 500 - Date.now();
      await waitFor(() => hook.received.find((r) => r.body.state === 'resolved'), { timeoutMs: 30_000, description: 'the resolved webhook' });
      await evaluatedSince(Date.now() + offsetMs, 5);
      expect(hook.received.map((r) => [r.body.rule, r.body.state])).toEqual([
        ['booking v2 vs v1', 'firing'],
        ['booking v2 vs v1', 'resolved'],
      ]);
      expect(hook.received[1].body).toMatchObject({ kind: 'regression', candidate: { n: 400, failed: 20 }, baseline: { n: 400, failed: 20 }, units: [] });

      // The history has both, delivered, newest first; the quiet rule has none.
      const history = await getJson<{ alerts: Array<{ rule_id: string; state: string; deliveries: Array<{ outcome: string; attempts: number }> }> }>(`/api/v1/alerts?rule_id=${bookingRule}`);
      expect(history.alerts.map((a) => [a.state, a.deliveries.map((d) => [d.outcome, d.attempts])])).toEqual([
        ['resolved', [['delivered', 1]]],
        ['firing', [['delivered', 1]]],
      ]);
      expect((await getJson<{ alerts: unknown[] }>(`/api/v1/alerts?rule_id=${searchRule}`)).alerts).toEqual([]);
    });
  });
}
