import { describe, expect, it } from 'vitest';
import { AlertRuleInputSchema, AlertRuleSchema, initialAlertState, type AlertRule, type AlertState, type MetricThresholdRule } from '../../../shared/engines/alerts/index.ts';
import type { UnitMetricRow } from '../../../shared/adapters/store/unit-metrics.ts';
import { evaluateRule, type RuleAggregates, type Transition } from './evaluate-rule.ts';
import { buildPayload } from './payload.ts';
import { ruleQueries } from './rule-queries.ts';
import { emailMessage } from './email-message.ts';
import { pagerDutyEvent } from './pagerduty-event.ts';
import { slackMessage } from './slack-message.ts';

const meta = { id: 'm1', project: 'shop', created_at_ms: 0, updated_at_ms: 0 };
const p95Rule = AlertRuleSchema.parse({ ...meta, name: 'slow', kind: 'metric_threshold', filters: { agent: 'booking' }, metric: 'duration_ms', stat: 'p95', window: '15m', warning: 5_000, critical: 8_000 }) as MetricThresholdRule;

function row(over: Partial<UnitMetricRow>): UnitMetricRow {
  return { t: null, group: null, units: 10, n: 10, sum: 0, sum_sq: 0, mean: 0, min: 0, max: 0, p50: 0, p95: 0, p99: 0, ...over };
}
const p95 = (x: number, n = 10): RuleAggregates => ({ kind: 'metrics', rows: [row({ p95: x, n })] });

function run(rule: AlertRule, steps: RuleAggregates[]): { transitions: Array<Transition | null>; levels: Array<string | null | undefined>; state: AlertState } {
  let state = initialAlertState(rule.id);
  const transitions: Array<Transition | null> = [];
  const levels: Array<string | null | undefined> = [];
  for (const [i, a] of steps.entries()) {
    const r = evaluateRule(rule, state, a, 60_000 * (i + 1));
    transitions.push(r.transition);
    levels.push(r.state.level);
    state = r.state;
  }
  return { transitions, levels, state };
}

describe('metric_threshold rules', () => {
  it('move ok → warning → critical → warning → ok, notifying on every change, one episode', () => {
    const r = run(p95Rule, [p95(4_000), p95(6_000), p95(6_500), p95(9_000), p95(7_000), p95(5_000), p95(4_999)]);
    expect(r.transitions).toEqual([null, 'fire', null, 'fire', 'fire', 'resolve', null]);
    expect(r.levels).toEqual([null, 'warning', 'warning', 'critical', 'warning', null, null]);
    expect(r.state.state).toBe('ok');
  });

  it('keep the first firing time across level changes (the PagerDuty dedup key), and a new one per episode', () => {
    let state = initialAlertState(p95Rule.id);
    const fired: Array<number | null> = [];
    for (const [i, x] of [6_000, 9_000, 1_000, 9_000].entries()) {
      state = evaluateRule(p95Rule, state, p95(x), 1_000 * (i + 1)).state;
      fired.push(state.fired_at_ms);
    }
    expect(fired).toEqual([1_000, 1_000, 1_000, 4_000]);
  });

  it('hold their level without enough samples, and wait for_evaluations in a row before moving', () => {
    const rule = AlertRuleSchema.parse({ ...p95Rule, min_samples: 5, for_evaluations: 2 }) as MetricThresholdRule;
    const r = run(rule, [p95(9_000), p95(9_000, 4), p95(9_000), p95(6_000), p95(9_000), p95(1_000), p95(1_000)]);
    expect(r.transitions).toEqual([null, null, 'fire', null, null, null, 'resolve']);
    expect(r.levels).toEqual([null, null, 'critical', 'critical', 'critical', 'critical', null]);
  });

  it('below: fire when the figure drops under the levels; rate is the sum per hour', () => {
    const volume = AlertRuleSchema.parse({ ...meta, name: 'quiet', kind: 'metric_threshold', metric: 'volume', stat: 'rate', window: '30m', warning: 100, critical: 20, direction: 'below' }) as MetricThresholdRule;
    const units = (n: number): RuleAggregates => ({ kind: 'metrics', rows: [row({ n, sum: n })] });
    const r = run(volume, [units(60), units(40), units(5), units(80)]);
    expect(r.transitions).toEqual([null, 'fire', 'fire', 'resolve']);
    expect(r.levels).toEqual([null, 'warning', 'critical', null]);
    expect(r.state.last_value).toBe(160);
    // An empty window is a volume of 0 (critical), not "no data".
    expect(run(volume, [{ kind: 'metrics', rows: [] }]).levels).toEqual(['critical']);
    expect(run(p95Rule, [{ kind: 'metrics', rows: [] }]).transitions).toEqual([null]);
  });

  it('payload, PagerDuty event and email carry the level', () => {
    let state = initialAlertState(p95Rule.id);
    const ev = evaluateRule(p95Rule, state, p95(9_100), 60_000);
    state = ev.state;
    const payload = buildPayload(p95Rule, ev.observation, { state: 'firing', firedAtMs: 60_000, units: [], level: 'critical' });
    expect(payload).toMatchObject({ kind: 'metric_threshold', level: 'critical', threshold: 8_000, value: 9_100, summary: 'p95 duration_ms of agent=booking over the last 15m is 9.1 s, above the critical level of 8.0 s (n = 10)' });
    expect(pagerDutyEvent({ type: 'pagerduty', routing_key: 'k', url: 'http://x' }, payload, 'key').payload?.severity).toBe('critical');
    const warning = buildPayload(p95Rule, ev.observation, { state: 'firing', firedAtMs: 60_000, units: [], level: 'warning' });
    expect(pagerDutyEvent({ type: 'pagerduty', routing_key: 'k', url: 'http://x' }, warning, 'key').payload?.severity).toBe('warning');
    const mail = emailMessage({ type: 'email', to: 'a@b.example' }, warning);
    expect(mail.subject).toBe('[tracecheck] Firing (warning): rule "slow"');
    expect(mail.text).toContain('Kind: metric_threshold\nValue: 9100\nLevel: warning\nThreshold: 5000\n');
    expect((slackMessage(warning).blocks[0] as { text: { text: string } }).text.text).toMatch(/^:rotating_light: \*Firing \(warning\): slow\*\n/);
    const resolved = buildPayload(p95Rule, evaluateRule(p95Rule, state, p95(100), 120_000).observation, { state: 'resolved', firedAtMs: 60_000, units: [] });
    expect(resolved.level).toBeUndefined();
    expect(resolved.summary).toBe('p95 duration_ms of agent=booking over the last 15m is 100 ms, back within the warning level of 5.0 s (n = 10)');
  });

  it('query the store over [now − window, now) with the filters and model', () => {
    const rule = AlertRuleSchema.parse({ ...p95Rule, filters: { agent: 'booking', model: 'gpt-4o' } });
    expect(ruleQueries(rule, 3_600_000)).toEqual({ kind: 'metrics', query: { agent: 'booking', model: 'gpt-4o', project: 'shop', metric: 'duration_ms', fromMs: 2_700_000, toMs: 3_600_000 } });
  });

  it('validate levels: at least one, critical beyond warning in the rule’s direction', () => {
    const base = { name: 'x', kind: 'metric_threshold', metric: 'cost_usd', stat: 'rate', window: '1h' };
    expect(AlertRuleInputSchema.safeParse(base).success).toBe(false);
    expect(AlertRuleInputSchema.safeParse({ ...base, critical: 5 }).success).toBe(true);
    expect(AlertRuleInputSchema.safeParse({ ...base, warning: 5, critical: 3 }).success).toBe(false);
    expect(AlertRuleInputSchema.safeParse({ ...base, warning: 5, critical: 3, direction: 'below' }).success).toBe(true);
    expect(AlertRuleInputSchema.safeParse({ ...base, critical: 5, metric: 'nope' }).success).toBe(false);
  });
});

describe('metric_regression rules', () => {
  const rule = AlertRuleSchema.parse({ ...meta, name: 'v2 slower', kind: 'metric_regression', metric: 'duration_ms', filters: { agent: 'booking' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' }, min_samples: 30 });
  // 40 units each, sd 500 ms: means 2 s and 3 s.
  const side = (mean: number, n = 40): UnitMetricRow[] => [row({ n, sum: n * mean, sum_sq: n * mean * mean + (n - 1) * 500 * 500, mean })];
  const pair = (a: number, b: number, n = 40): RuleAggregates => ({ kind: 'metric_pair', baseline: side(a, n), candidate: side(b, n) });

  it('fire once when the candidate is significantly slower; not when it is faster, equal or thin', () => {
    expect(run(rule, [pair(2_000, 3_000, 20), pair(2_000, 3_000), pair(2_000, 3_000), pair(2_000, 3_000)]).transitions).toEqual([null, 'fire', null, null]);
    expect(run(rule, [pair(3_000, 2_000), pair(2_000, 2_000)]).transitions).toEqual([null, null]);
    const ev = evaluateRule(rule, initialAlertState(rule.id), pair(2_000, 3_000), 60_000);
    const payload = buildPayload(rule, ev.observation, { state: 'firing', firedAtMs: 60_000, units: [] });
    expect(payload.summary).toMatch(/^version v2 of booking has a significantly higher mean duration_ms than v1: 3\.0 s vs 2\.0 s, n = 40 vs 40, p < 0\.001$/);
    expect(payload.value).toBe(3_000);
  });

  it('query both sides over the window', () => {
    const q = ruleQueries(rule, 8 * 86_400_000);
    expect(q).toEqual({
      kind: 'metric_pair',
      baseline: { agent: 'booking', agentVersion: 'v1', project: 'shop', metric: 'duration_ms', fromMs: 86_400_000, toMs: 8 * 86_400_000 },
      candidate: { agent: 'booking', agentVersion: 'v2', project: 'shop', metric: 'duration_ms', fromMs: 86_400_000, toMs: 8 * 86_400_000 },
    });
  });
});
