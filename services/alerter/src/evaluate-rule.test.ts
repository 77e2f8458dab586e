import { describe, expect, it } from 'vitest';
import { AlertRuleSchema, initialAlertState, type AlertRule, type AlertState } from '../../../shared/engines/alerts/index.ts';
import type { ScoreAggregate } from '../../../shared/adapters/store/contract.ts';
import { evaluateRule, nextState, REGRESSION_RECOVERY_EVALUATIONS, type RuleAggregates, type Transition } from './evaluate-rule.ts';
import { regressionVerdict } from './regression-test.ts';
import { ruleQueries } from './rule-queries.ts';

const meta = { id: 'r1', project: 'default', created_at_ms: 0, updated_at_ms: 0 };
const thresholdRule = AlertRuleSchema.parse({ ...meta, name: 'lg', kind: 'threshold', check: 'loop_guard', window: '15m', threshold: 0.9, min_samples: 20, for_evaluations: 3 });

function agg(over: Partial<ScoreAggregate>): ScoreAggregate {
  return { check: 'loop_guard', t: null, total: 0, n: 0, passed: 0, judged: 0, valued: 0, value_sum: 0, value_sq_sum: 0, error_count: 0, not_run_count: 0, mean_lag_ms: null, ...over };
}
/** Pass/fail scores: `passed` of `judged`, all ok. */
const passFail = (passed: number, judged: number): ScoreAggregate => agg({ total: judged, n: judged, judged, passed, valued: judged, value_sum: passed, value_sq_sum: passed });
const single = (...rows: ScoreAggregate[]): RuleAggregates => ({ kind: 'single', rows });

/** Runs evaluations in sequence, one minute apart, and returns the transitions (null for none). */
function run(rule: AlertRule, steps: RuleAggregates[], start: AlertState = initialAlertState(rule.id)): { transitions: Array<Transition | null>; state: AlertState } {
  let state = start;
  const transitions: Array<Transition | null> = [];
  for (const [i, a] of steps.entries()) {
    const r = evaluateRule(rule, state, a, 60_000 * (i + 1));
    transitions.push(r.transition);
    state = r.state;
  }
  return { transitions, state };
}

const BAD = single(passFail(70, 100));
const GOOD = single(passFail(95, 100));

describe('threshold rules', () => {
  it('do not fire below min_samples, however bad', () => {
    const thin = single(passFail(0, 19));
    const r = run(thresholdRule, [thin, thin, thin, thin]);
    expect(r.transitions).toEqual([null, null, null, null]);
    expect(r.state.state).toBe('ok');
    expect(r.state.last_value).toBe(0);
  });

  it('need for_evaluations bad evaluations in a row: bad, good, bad, bad does not fire', () => {
    const r = run(thresholdRule, [BAD, GOOD, BAD, BAD]);
    expect(r.transitions).toEqual([null, null, null, null]);
    expect(r.state).toMatchObject({ state: 'pending', consecutive_bad: 2 });
  });

  it('fire once after three bad evaluations and stay firing silently', () => {
    const r = run(thresholdRule, [BAD, BAD, BAD, BAD, BAD, BAD]);
    expect(r.transitions).toEqual([null, null, 'fire', null, null, null]);
    expect(r.state).toMatchObject({ state: 'firing', fired_at_ms: 180_000, last_notified_at_ms: 180_000, last_value: 0.7 });
  });

  it('resolve once after for_evaluations good evaluations in a row; one good minute is not a recovery', () => {
    const r = run(thresholdRule, [BAD, BAD, BAD, GOOD, BAD, GOOD, GOOD, GOOD, GOOD, GOOD]);
    expect(r.transitions).toEqual([null, null, 'fire', null, null, null, null, 'resolve', null, null]);
    expect(r.state).toMatchObject({ state: 'ok', consecutive_bad: 0, fired_at_ms: 180_000, last_notified_at_ms: 480_000 });
  });

  it('keep a firing rule firing when traffic drops below min_samples', () => {
    const thin = single(passFail(19, 19));
    expect(run(thresholdRule, [BAD, BAD, BAD, thin, thin, thin, thin]).transitions).toEqual([null, null, 'fire', null, null, null, null]);
  });

  it('remind every remind_every while firing', () => {
    const rule = AlertRuleSchema.parse({ ...thresholdRule, remind_every: '2m' });
    expect(run(rule, [BAD, BAD, BAD, BAD, BAD, BAD, BAD, GOOD, GOOD, GOOD]).transitions).toEqual([null, null, 'fire', null, 'remind', null, 'remind', null, 'remind', 'resolve']);
  });

  it('compare the mean with the threshold for metric "mean"', () => {
    const rule = AlertRuleSchema.parse({ ...thresholdRule, metric: 'mean', threshold: 0.5, for_evaluations: 1 });
    const r = evaluateRule(rule, initialAlertState('r1'), single(agg({ total: 40, n: 40, judged: 0, valued: 40, value_sum: 16, value_sq_sum: 10 })), 1);
    expect(r.observation).toMatchObject({ value: 0.4, n: 40, verdict: 'bad' });
    expect(r.transition).toBe('fire');
  });
});

describe('regression rules', () => {
  const rule = AlertRuleSchema.parse({ ...meta, name: 'v2', kind: 'regression', check: 'loop_guard', filters: { agent: 'booking-agent' }, baseline: { agent_version: 'v1' }, candidate: { agent_version: 'v2' } });
  const pair = (baselineFailed: number, candidateFailed: number, n = 400): RuleAggregates => ({ kind: 'pair', baseline: [passFail(n - baselineFailed, n)], candidate: [passFail(n - candidateFailed, n)] });

  it('fire on 20 vs 120 failures of 400 each, and not on 20 vs 28', () => {
    const worse = evaluateRule(rule, initialAlertState('r1'), pair(20, 120), 1);
    expect(worse.transition).toBe('fire');
    expect(worse.observation).toMatchObject({ verdict: 'bad', value: 0.3, baseline: { n: 400, passed: 380 }, candidate: { n: 400, passed: 280 } });
    expect((worse.observation as { pValue: number }).pValue).toBeLessThan(1e-10);
    const close = evaluateRule(rule, initialAlertState('r1'), pair(20, 28), 1);
    expect(close.transition).toBeNull();
    expect(close.observation).toMatchObject({ verdict: 'good', pValue: 1 });
  });

  it('never fire when the candidate is better, nor below min_samples', () => {
    expect(evaluateRule(rule, initialAlertState('r1'), pair(120, 20), 1).transition).toBeNull();
    expect(evaluateRule(rule, initialAlertState('r1'), pair(0, 29, 29), 1).observation.verdict).toBe('unknown');
  });

  it(`resolve after ${REGRESSION_RECOVERY_EVALUATIONS} non-significant evaluations in a row`, () => {
    expect(run(rule, [pair(20, 120), pair(20, 28), pair(20, 120), pair(20, 28), pair(20, 28), pair(20, 28)]).transitions).toEqual(['fire', null, null, null, null, 'resolve']);
  });

  it('query each side with the rule filters, the side filters and the project over the window', () => {
    expect(ruleQueries(rule, 1_000_000_000)).toEqual({
      kind: 'pair',
      baseline: { agent: 'booking-agent', agentVersion: 'v1', project: 'default', check: 'loop_guard', fromMs: 1_000_000_000 - 7 * 86_400_000, toMs: 1_000_000_000 },
      candidate: { agent: 'booking-agent', agentVersion: 'v2', project: 'default', check: 'loop_guard', fromMs: 1_000_000_000 - 7 * 86_400_000, toMs: 1_000_000_000 },
    });
  });
});

describe('regressionVerdict (mSPRT)', () => {
  it('computes the always-valid p-value from the closed form', () => {
    // θ̂ = 0.02, p̄ = 0.94, V = 0.94·0.06·(2/400) = 2.82e-4, τ² = 0.01:
    // Λ = sqrt(V/(V+τ²))·exp(θ̂²τ²/(2V(V+τ²))) = 0.165609…·exp(0.689698…) = 0.330240…
    const r = regressionVerdict({ passedA: 380, totalA: 400, passedB: 372, totalB: 400 }, { alpha: 0.05, minSamples: 30 });
    expect(r.pValue).toBe(1);
    const s = regressionVerdict({ passedA: 380, totalA: 400, passedB: 340, totalB: 400 }, { alpha: 0.05, minSamples: 30, tau: 0.1 });
    // θ̂ = 0.1, p̄ = 0.9, V = 4.5e-4: Λ = sqrt(4.5e-4/0.01045)·exp(1e-4/(2·4.5e-4·0.01045)) = 0.207514…·exp(10.632642…) = 8.6126e3…
    expect(s.pValue).toBeCloseTo(1 / (Math.sqrt(4.5e-4 / 0.01045) * Math.exp(1e-4 / (2 * 4.5e-4 * 0.01045))), 12);
    expect(s.fire).toBe(true);
  });

  it('is quiet with no variance or no scores', () => {
    expect(regressionVerdict({ passedA: 50, totalA: 50, passedB: 50, totalB: 50 }, { alpha: 0.05, minSamples: 30 })).toMatchObject({ fire: false, pValue: 1, insufficient: false });
    expect(regressionVerdict({ passedA: 0, totalA: 0, passedB: 0, totalB: 50 }, { alpha: 0.05, minSamples: 30 })).toMatchObject({ fire: false, pValue: 1, insufficient: true });
  });
});

describe('judge_health rules', () => {
  const rule = AlertRuleSchema.parse({ ...meta, name: 'judge', kind: 'judge_health', window: '30m', max_error_rate: 0.05, max_lag_ms: 60_000, for_evaluations: 1 });

  it('count error and not_run scores of every judge check against the limit', () => {
    const rows = [agg({ check: 'a', total: 100, n: 94, error_count: 4, not_run_count: 2, mean_lag_ms: 1_000 }), agg({ check: 'b', total: 60, n: 60, mean_lag_ms: 3_000 })];
    const r = evaluateRule(rule, initialAlertState('r1'), single(...rows), 1);
    expect(r.observation).toEqual({ kind: 'judge_health', total: 160, errors: 6, errorRate: 0.0375, lagMs: 1_750, broken: null, reported: 'error_rate', value: 0.0375, verdict: 'good' });
    const worse = evaluateRule(rule, initialAlertState('r1'), single(agg({ total: 100, n: 90, error_count: 10, mean_lag_ms: 1_000 })), 1);
    expect(worse.observation).toMatchObject({ errorRate: 0.1, broken: 'error_rate', value: 0.1, verdict: 'bad' });
    expect(worse.transition).toBe('fire');
  });

  it('fire on the mean lag', () => {
    const r = evaluateRule(rule, initialAlertState('r1'), single(agg({ total: 50, n: 50, mean_lag_ms: 90_000 })), 1);
    expect(r.observation).toMatchObject({ errorRate: 0, lagMs: 90_000, broken: 'lag', value: 90_000, verdict: 'bad' });
  });

  it('ask the store for judge checks only', () => {
    expect(ruleQueries(rule, 10_000_000)).toEqual({ kind: 'single', query: { project: 'default', judgeOnly: true, fromMs: 10_000_000 - 1_800_000, toMs: 10_000_000 } });
  });

  it('say unknown below min_samples', () => {
    expect(evaluateRule(rule, initialAlertState('r1'), single(agg({ total: 19, error_count: 19 })), 1).observation.verdict).toBe('unknown');
  });
});

describe('nextState', () => {
  it('records the value and clears the last error', () => {
    const prev = { ...initialAlertState('r1'), last_error: 'timeout' };
    expect(nextState(thresholdRule, prev, 'good', 0.95, 42).state).toEqual({ ...initialAlertState('r1'), last_value: 0.95, last_evaluated_at_ms: 42 });
  });
});
