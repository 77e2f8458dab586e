import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertRuleSchema, createAlertRepository, type AlertPayload } from '../../../shared/engines/alerts/index.ts';
import { listProblems } from '../../../shared/engines/problems/index.ts';
import { runsOf, sendRuns } from '../../helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';
import { startPipeline, type Harness } from '../../helpers/pipeline-harness.ts';

// Problem alerts (issue 37): a problem rule delivers each problem's state change to a real webhook
// receiver on loopback exactly once, also when the alerter (and its problem miner) restarts on the
// same store and bus: nothing sent again after the restart, and a change made after it is sent.

interface Receiver {
  url: string;
  bodies: AlertPayload[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: AlertPayload[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertPayload);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/problems`, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const deployments: Array<[string, () => Record<string, string>]> = [
  ['in-process bus + DuckDB', () => ({})],
  ['Kafka + ClickHouse', () => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('problem_alerts') })],
];

describe.each(deployments)('problem alerts (%s)', (_name, deployment) => {
  let h: Harness | undefined;
  let receiver: Receiver;
  const env = deployment();
  const settings = { ...env, TRACECHECK_CHECKS: 'loop_guard', TRACECHECK_ALERT_INTERVAL_MS: '200', TRACECHECK_ALERT_ALLOW_PRIVATE_TARGETS: '127.0.0.1' };
  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startPipeline(settings, { alerterNow: Date.now });
    const t = Date.now();
    await createAlertRepository(h.pipeline.store!).putRule(
      AlertRuleSchema.parse({ id: 'problems-rule', project: 'default', created_at_ms: t, updated_at_ms: t, name: 'new problems', kind: 'problem', notify: [{ type: 'webhook', url: receiver.url }] }),
    );
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
    await receiver?.close();
  });

  it('sends each new problem once, with its units, and nothing again after a restart', async () => {
    const first = await sendRuns(runsOf('booking', 'v1', 8, 4), { collectorUrl: h!.pipeline.collectorUrl() });
    await waitFor(() => (receiver.bodies.length >= 1 ? true : null), { timeoutMs: 60_000, description: 'the first problem_new delivered' });
    const problem = (await listProblems(h!.pipeline.store!, 'default'))[0];
    expect(receiver.bodies[0]).toMatchObject({ rule: 'new problems', state: 'firing', kind: 'problem_new', check: 'loop_guard', problem: { id: problem.id, title: 'booking: loop over check_availability', agent: 'booking' } });
    expect(receiver.bodies[0].units.length).toBeGreaterThan(0);
    expect(receiver.bodies[0].units.every((u) => first.includes(u))).toBe(true);

    // Restart the alerter and its miner (the whole process) on the same store, topics and groups.
    const identity = h!.identity;
    await h!.stop();
    h = undefined;
    h = await startPipeline(settings, { alerterNow: Date.now, restartOf: identity });
    // More of the same problem (no state change), then a new one: only the new one is sent.
    await sendRuns(runsOf('booking', 'v1', 4, 2), { collectorUrl: h.pipeline.collectorUrl() });
    await sendRuns(runsOf('concierge', 'v1', 4, 2), { collectorUrl: h.pipeline.collectorUrl() });
    const store = h.pipeline.store!;
    await waitFor(async () => ((await listProblems(store, 'default')).find((p) => p.agent === 'booking')?.count === 6 ? true : null), { timeoutMs: 60_000, description: 'the booking problem at 6 units' });
    await waitFor(() => (receiver.bodies.length >= 2 ? true : null), { timeoutMs: 60_000, description: 'the second problem_new delivered' });
    // Two more evaluations after both changes were sent: nothing else arrives.
    await h.pipeline.alerter!.evaluateOnce();
    await h.pipeline.alerter!.evaluateOnce();
    await h.pipeline.alerter!.idle();
    const concierge = (await listProblems(store, 'default')).find((p) => p.agent === 'concierge')!;
    expect(receiver.bodies.map((b) => [b.kind, b.problem?.id])).toEqual([
      ['problem_new', problem.id],
      ['problem_new', concierge.id],
    ]);
    expect(receiver.bodies[1].problem).toMatchObject({ title: 'concierge: loop over check_availability', count: 2 });
    const history = await createAlertRepository(store).listEvents({ project: 'default', ruleId: 'problems-rule' });
    expect(history.events.map((e) => [e.payload.kind, e.delivery_status, e.deliveries.map((d) => d.outcome)])).toEqual([
      ['problem_new', 'done', ['delivered']],
      ['problem_new', 'done', ['delivered']],
    ]);
  }, 240_000);
});
