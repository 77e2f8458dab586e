import { describe, expect, it } from 'vitest';
import { AlertRuleSchema, initialAlertState, type AlertRule } from '../../../shared/engines/alerts/index.ts';
import type { ScoreAggregate } from '../../../shared/adapters/store/contract.ts';
import { evaluateRule, type RuleAggregates } from './evaluate-rule.ts';
import { buildPayload } from './payload.ts';
import { formatPValue, summarize } from './summary.ts';

const meta = { id: 'r1', project: 'default', created_at_ms: 0, updated_at_ms: 0 };
function agg(over: Partial<ScoreAggregate>): ScoreAggregate {
  return { check: 'loop_guard', t: null, total: 0, n: 0, passed: 0, judged: 0, valued: 0, value_sum: 0, value_sq_sum: 0, error_count: 0, not_run_count: 0, mean_lag_ms: null, ...over };
}
const passFail = (passed: number, judged: number): ScoreAggregate => agg({ total: judged, n: judged, judged, passed, valued: judged, value_sum: passed, value_sq_sum: passed });
const observe = (rule: AlertRule, a: RuleAggregates) => evaluateRule(rule, initialAlertState(rule.id), a, 1).observation;

describe('summaries', () => {
  const regression = AlertRuleSchema.parse({ ...meta, name: 'v2 vs v1', kind: 'regression', check: 'loop_guard', filters: { agent: 'booking-agent' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } });
  const worse: RuleAggregates = { kind: 'pair', baseline: [passFail(378, 398)], candidate: [passFail(290, 412)] };

  it('say which version fails more often, with intervals, sizes and the p-value', () => {
    expect(summarize(regression, observe(regression, worse), 'firing')).toBe(
      'version v2 of booking-agent fails loop_guard significantly more often than v1: 29.6% [25.4–34.2] vs 5.0% [3.3–7.6], n = 412 vs 398, p < 0.001',
    );
    expect(summarize(regression, observe(regression, { kind: 'pair', baseline: [passFail(378, 398)], candidate: [passFail(385, 410)] }), 'resolved')).toBe(
      'version v2 of booking-agent no longer fails loop_guard significantly more often than v1: 6.1% [4.2–8.8] vs 5.0% [3.3–7.6], n = 410 vs 398, p = 1.000',
    );
  });

  it('describe sides that are not versions by their filters', () => {
    const rule = AlertRuleSchema.parse({ ...regression, filters: undefined, baseline: { environment: 'prod' }, candidate: { environment: 'canary', agent_version: 'v2' } });
    expect(summarize(rule, observe(rule, worse), 'firing')).toMatch(/^agent_version=v2, environment=canary fails loop_guard significantly more often than environment=prod: /);
  });

  it('state a threshold breach and its recovery', () => {
    const rule = AlertRuleSchema.parse({ ...meta, name: 'lg', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9 });
    expect(summarize(rule, observe(rule, { kind: 'single', rows: [passFail(115, 160)] }), 'firing')).toBe('loop_guard pass rate 71.9% [64.5–78.3] over the last 15m is below 90.0% (n = 160)');
    expect(summarize(rule, observe(rule, { kind: 'single', rows: [passFail(150, 160)] }), 'resolved')).toBe('loop_guard pass rate 93.8% [88.9–96.6] over the last 15m is back at or above 90.0% (n = 160)');
    const mean = AlertRuleSchema.parse({ ...rule, metric: 'mean', threshold: 0.7, filters: { agent: 'booking-agent' } });
    expect(summarize(mean, observe(mean, { kind: 'single', rows: [agg({ total: 100, n: 100, valued: 100, value_sum: 62, value_sq_sum: 40 })] }), 'firing')).toBe(
      'loop_guard mean of agent=booking-agent 0.62 [0.595–0.645] over the last 15m is below 0.7 (n = 100)',
    );
  });

  it('state judge health by the broken limit', () => {
    const rule = AlertRuleSchema.parse({ ...meta, name: 'j', kind: 'judge_health', window: '30m', max_error_rate: 0.05, max_lag_ms: 60_000 });
    const bad = observe(rule, { kind: 'single', rows: [agg({ total: 160, n: 140, error_count: 12, not_run_count: 8, mean_lag_ms: 95_000 })] });
    expect(summarize(rule, bad, 'firing')).toBe(
      '12.5% of 160 judge scores errored or were not run over the last 30m, above the limit of 5.0%; scoring trails the agents by 95.0 s on average over the last 30m, above the limit of 60.0 s (n = 160)',
    );
    const lagOnly = observe(rule, { kind: 'single', rows: [agg({ total: 160, n: 160, mean_lag_ms: 95_000 })] });
    expect(summarize(rule, lagOnly, 'firing')).toBe('scoring of judge scores trails the agents by 95.0 s on average over the last 30m, above the limit of 60.0 s (n = 160)');
    expect(buildPayload(rule, lagOnly, { state: 'firing', firedAtMs: 0, units: [] })).toMatchObject({ value: 95_000, threshold: 60_000, check: null });
  });

  it('format p-values', () => {
    expect([0.0004, 0.012, 0.5].map(formatPValue)).toEqual(['p < 0.001', 'p = 0.012', 'p = 0.500']);
  });
});

describe('buildPayload', () => {
  it('has exactly the webhook fields of a regression', () => {
    const rule = AlertRuleSchema.parse({ ...meta, name: 'v2 vs v1', kind: 'regression', check: 'loop_guard', filters: { agent: 'booking-agent' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } });
    const o = observe(rule, { kind: 'pair', baseline: [passFail(380, 400)], candidate: [passFail(280, 400)] });
    const p = buildPayload(rule, o, { state: 'firing', firedAtMs: Date.UTC(2026, 0, 1), units: ['u1', 'u2', 'u1'] });
    expect(Object.keys(p).sort()).toEqual(['baseline', 'candidate', 'check', 'fired_at', 'kind', 'p_value', 'rule', 'state', 'summary', 'units', 'value', 'window']);
    expect(p).toMatchObject({
      rule: 'v2 vs v1',
      state: 'firing',
      kind: 'regression',
      check: 'loop_guard',
      value: 0.3,
      window: '7d',
      units: ['u1', 'u2'],
      fired_at: '2026-01-01T00:00:00.000Z',
      baseline: { filters: { agent: 'booking-agent', agent_version: 'v1' }, n: 400, failed: 20, failure_rate: 0.05 },
      candidate: { filters: { agent: 'booking-agent', agent_version: 'v2' }, n: 400, failed: 120, failure_rate: 0.3 },
    });
  });
});
