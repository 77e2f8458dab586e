import { describe, expect, it } from 'vitest';
import { AlertRuleSchema, createAlertRepository, type AlertEvent, type AlertPayload, type ProblemRule } from '../../../shared/engines/alerts/index.ts';
import { createInMemoryQueryStore } from '../../../shared/engines/alerts/testing/in-memory-query-store.ts';
import { PROBLEM_DOC_KINDS, putProblemEvent } from '../../../shared/engines/problems/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createProblemAlerts } from './problem-alerts.ts';

const T = Date.UTC(2026, 10, 29, 12, 0, 0);
const log = createSilentLogger();

function setup() {
  const store = createInMemoryQueryStore();
  const repo = createAlertRepository(store);
  const sent: Array<{ payload: AlertPayload; id: string; dedupKey: string }> = [];
  /** As the alerter's send: the history event first; `outcome` says how the delivery ends ('crash': never recorded). */
  const alerts = (outcome: 'done' | 'crash' = 'done') =>
    createProblemAlerts({
      store,
      repo,
      log,
      async send(rule, payload, o) {
        sent.push({ payload, id: o.id, dedupKey: o.dedupKey });
        const event: AlertEvent = { id: o.id, project: rule.project, rule_id: rule.id, rule_name: rule.name, state: 'firing', payload, delivery_status: 'pending', deliveries: [], created_at_ms: o.nowMs };
        await repo.putEvent(event, o.nowMs);
        if (outcome === 'done') await repo.putEvent({ ...event, delivery_status: 'done' }, o.nowMs + 1);
      },
    });
  return { store, repo, sent, alerts };
}

const rule = (over: object = {}): ProblemRule => AlertRuleSchema.parse({ id: 'r1', project: 'default', created_at_ms: T - 10_000, updated_at_ms: 0, name: 'problems', kind: 'problem', ...over }) as ProblemRule;
const report = () => ({ problemNotifications: [] as Array<{ ruleId: string; kind: string; problemId: string }> });

describe('problem alerts', () => {
  it('notify once per rule and state change, also from a new process, and not changes older than the rule', async () => {
    const { store, sent, alerts } = setup();
    await store.putDoc({ kind: PROBLEM_DOC_KINDS.problem, project: 'default', id: 'p1', body: { nope: 1 }, updated_at_ms: T });
    await putProblemEvent(store, 'default', { kind: 'problem_new', problem_id: 'old', at_ms: T - 20_000, units: ['o'] }, T - 20_000);
    await putProblemEvent(store, 'default', { kind: 'problem_new', problem_id: 'p1', at_ms: T, units: ['a'] }, T);
    await putProblemEvent(store, 'default', { kind: 'problem_resolved', problem_id: 'p1', at_ms: T + 1, units: [] }, T + 1);
    const first = alerts();
    const r1 = report();
    await first.deliver([rule()], T + 5, r1);
    await first.deliver([rule()], T + 6, report());
    expect(r1.problemNotifications).toEqual([{ ruleId: 'r1', kind: 'problem_new', problemId: 'p1' }]);
    await putProblemEvent(store, 'default', { kind: 'problem_growing', problem_id: 'p1', at_ms: T + 10, version: 'v2', baseline: 'v1', p_value: 0.01, units: ['b'] }, T + 10);
    const restarted = alerts();
    await restarted.deliver([rule()], T + 20, report());
    expect(sent.map((s) => [s.payload.kind, s.payload.units, s.dedupKey])).toEqual([
      ['problem_new', ['a'], 'tracecheck:default:r1:p1:problem_new::1795953600000'],
      ['problem_growing', ['b'], 'tracecheck:default:r1:p1:problem_growing:v2:1795953600010'],
    ]);
  });

  it('sends again a change whose delivery a crash left pending, and each rule gets its own', async () => {
    const { store, sent, alerts } = setup();
    await putProblemEvent(store, 'default', { kind: 'problem_new', problem_id: 'p1', at_ms: T, units: ['a'] }, T);
    await alerts('crash').deliver([rule()], T + 5, report());
    await alerts().deliver([rule(), rule({ id: 'r2', events: ['problem_growing'] }), rule({ id: 'r3', problem_id: 'p1' })], T + 6, report());
    await alerts().deliver([rule(), rule({ id: 'r3', problem_id: 'p1' })], T + 7, report());
    expect(sent.map((s) => s.dedupKey.split(':')[2])).toEqual(['r1', 'r1', 'r3']);
    expect(sent[0].id).toBe(sent[1].id);
  });
});
