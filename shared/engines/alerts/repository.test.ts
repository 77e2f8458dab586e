import { describe, expect, it } from 'vitest';
import { initialAlertState, type AlertEvent } from './event.ts';
import { createAlertRepository, newAlertEventId } from './repository.ts';
import { AlertRuleSchema } from './rule.ts';
import { createInMemoryQueryStore } from './testing/in-memory-query-store.ts';

const rule = (id: string, project = 'default') =>
  AlertRuleSchema.parse({ id, project, created_at_ms: 1, updated_at_ms: 1, name: id, kind: 'threshold', check: 'c', window: '15m', threshold: 0.9 });

const event = (id: string, ruleId: string, atMs: number): AlertEvent => ({
  id,
  project: 'default',
  rule_id: ruleId,
  rule_name: ruleId,
  state: 'firing',
  payload: { rule: ruleId, state: 'firing', kind: 'threshold', check: 'c', summary: 's', value: 0.5, threshold: 0.9, window: '15m', units: [], fired_at: new Date(atMs).toISOString() },
  delivery_status: 'none',
  deliveries: [],
  created_at_ms: atMs,
});

describe('createAlertRepository', () => {
  it('keeps rules and states per project and deletes a rule with its state', async () => {
    const store = createInMemoryQueryStore();
    const invalid: string[] = [];
    const repo = createAlertRepository(store, (doc, problems) => invalid.push(`${doc.id}: ${problems.join('; ')}`));
    await repo.putRule(rule('r1'));
    await repo.putRule(rule('r2', 'other'));
    await store.putDoc({ kind: 'alert_rule', project: 'default', id: 'bad', body: { name: 'x' }, updated_at_ms: 5 });
    await repo.putState('default', { ...initialAlertState('r1'), state: 'firing' }, 10);
    expect((await repo.listRules()).map((r) => r.id)).toEqual(['r1', 'r2']);
    expect((await repo.listRules('other')).map((r) => r.id)).toEqual(['r2']);
    expect(invalid).toEqual(["bad: kind: Invalid discriminator value. Expected 'threshold' | 'regression' | 'judge_health' | 'no_data' | 'agreement' | 'metric_threshold' | 'metric_regression' | 'problem'"]);
    expect((await repo.listStates()).get('r1')?.state).toBe('firing');
    await repo.deleteRule('default', 'r1');
    expect(await repo.getRule('default', 'r1')).toBeNull();
    expect((await repo.listStates()).size).toBe(0);
  });

  it('pages the history newest first without losing events that share a timestamp', async () => {
    const store = createInMemoryQueryStore();
    const repo = createAlertRepository(store);
    // Timestamps 100, 200, 200, 200, 300, 400: a page of 2 from the top would cut the run of 200s.
    const times = [100, 200, 200, 200, 300, 400];
    for (const [i, t] of times.entries()) await repo.putEvent(event(`e${i}`, i % 2 === 0 ? 'a' : 'b', t), t);
    const seen: string[] = [];
    let before: number | undefined;
    for (let page = 0; page < 10; page++) {
      const p = await repo.listEvents({ project: 'default', limit: 2, ...(before !== undefined ? { beforeMs: before } : {}) });
      seen.push(p.events.map((e) => e.id).join(','));
      if (p.nextBeforeMs === null) break;
      before = p.nextBeforeMs;
    }
    expect(seen).toEqual(['e5,e4', 'e3,e2,e1', 'e0']);

    const onlyA = await repo.listEvents({ project: 'default', ruleId: 'a', limit: 2 });
    expect(onlyA.events.map((e) => e.id)).toEqual(['e4', 'e2']);
    const restA = await repo.listEvents({ project: 'default', ruleId: 'a', limit: 2, beforeMs: onlyA.nextBeforeMs! });
    expect(restA.events.map((e) => e.id)).toEqual(['e0']);
    expect(restA.nextBeforeMs).toBeNull();
    expect((await repo.listEvents({ project: 'other' })).events).toEqual([]);
  });

  it('makes time-sortable event ids', () => {
    expect(newAlertEventId(1_700_000_000_000)).toMatch(/^1700000000000-[0-9a-f]{8}$/);
    expect(newAlertEventId(5) < newAlertEventId(1_000)).toBe(true);
  });
});
