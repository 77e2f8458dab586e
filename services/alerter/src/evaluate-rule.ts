import { parseDuration, type AlertRule, type AlertState, type JudgeHealthRule, type NoDataRule, type RegressionRule, type ThresholdRule } from '../../../shared/engines/alerts/index.ts';
import { notWindowed } from './problem-rules.ts';
import type { ScoreAggregate } from '../../../shared/adapters/store/contract.ts';
import { regressionVerdict } from './regression-test.ts';
import { observeAgreement, type AgreementObservation } from './agreement-rule.ts';
import type { Review } from '../../../shared/engines/review/index.ts';
import type { UnitMetricRow } from '../../../shared/adapters/store/unit-metrics.ts';
import { observeMetricRegression, observeMetricThreshold, type MetricObservation } from './metric-rules.ts';
import { nextLevelState } from './metric-levels.ts';

/** What one evaluation says: the rule's condition holds (bad), does not (good), or too few scores to tell. */
export type Verdict = 'bad' | 'good' | 'unknown';

export interface Counts {
  /** Scores with a verdict (the denominator of a rate). */
  n: number;
  /** Passing ones. */
  passed: number;
}

export type Observation =
  | { kind: 'threshold'; metric: 'pass_rate' | 'mean'; value: number | null; n: number; passed: number; valueSum: number; valueSqSum: number; verdict: Verdict }
  | { kind: 'regression'; baseline: Counts; candidate: Counts; pValue: number; value: number | null; verdict: Verdict }
  | {
      kind: 'judge_health';
      total: number;
      /** error + not_run scores. */
      errors: number;
      errorRate: number | null;
      lagMs: number | null;
      /** Which limit is broken (error rate first), or null. */
      broken: 'error_rate' | 'lag' | null;
      /** What `value` is: the broken limit's metric, else the error rate when it has a limit. */
      reported: 'error_rate' | 'lag';
      value: number | null;
      verdict: Verdict;
    }
  /** `value`: 1 when at least one unit ended within the window, else 0. */
  | { kind: 'no_data'; value: number; verdict: Verdict }
  | AgreementObservation
  | MetricObservation;

/** Aggregates as the store answered the rule's queries (see `ruleQueries`). */
export type RuleAggregates =
  | { kind: 'single'; rows: ScoreAggregate[] }
  | { kind: 'pair'; baseline: ScoreAggregate[]; candidate: ScoreAggregate[] }
  /** Units that ended within the window, counted up to one. */
  | { kind: 'units'; seen: number }
  | { kind: 'reviews'; reviews: Review[] }
  /** The store's unit metrics over the window (metric rules): one side, or both of a metric regression. */
  | { kind: 'metrics'; rows: UnitMetricRow[] }
  | { kind: 'metric_pair'; baseline: UnitMetricRow[]; candidate: UnitMetricRow[] };

export type Transition = 'fire' | 'remind' | 'resolve';

export interface RuleEvaluation {
  observation: Observation;
  state: AlertState;
  /** A notification is due: firing, a reminder while firing, or recovery. Null on every other evaluation. */
  transition: Transition | null;
}

/**
 * A regression fires on the first significant evaluation (the always-valid test already guards
 * against repeated looks) but resolves only after this many non-significant ones in a row, so a
 * p-value hovering around alpha does not flap.
 */
export const REGRESSION_RECOVERY_EVALUATIONS = 3;

function sum(rows: readonly ScoreAggregate[], field: 'total' | 'n' | 'passed' | 'judged' | 'valued' | 'value_sum' | 'value_sq_sum' | 'error_count' | 'not_run_count'): number {
  return rows.reduce((acc, r) => acc + r[field], 0);
}

function observeThreshold(rule: ThresholdRule, rows: readonly ScoreAggregate[]): Observation {
  const judged = sum(rows, 'judged');
  const valued = sum(rows, 'valued');
  const valueSum = sum(rows, 'value_sum');
  const n = rule.metric === 'mean' ? valued : judged;
  const passed = sum(rows, 'passed');
  const value = n === 0 ? null : rule.metric === 'mean' ? valueSum / valued : passed / judged;
  const verdict: Verdict = value === null || n < rule.min_samples ? 'unknown' : value < rule.threshold ? 'bad' : 'good';
  return { kind: 'threshold', metric: rule.metric, value, n, passed, valueSum, valueSqSum: sum(rows, 'value_sq_sum'), verdict };
}

function observeRegression(rule: RegressionRule, baselineRows: readonly ScoreAggregate[], candidateRows: readonly ScoreAggregate[]): Observation {
  const baseline = { n: sum(baselineRows, 'judged'), passed: sum(baselineRows, 'passed') };
  const candidate = { n: sum(candidateRows, 'judged'), passed: sum(candidateRows, 'passed') };
  const r = regressionVerdict({ passedA: baseline.passed, totalA: baseline.n, passedB: candidate.passed, totalB: candidate.n }, { alpha: rule.alpha, minSamples: rule.min_samples });
  const verdict: Verdict = r.insufficient ? 'unknown' : r.fire ? 'bad' : 'good';
  return { kind: 'regression', baseline, candidate, pValue: r.pValue, value: candidate.n > 0 ? (candidate.n - candidate.passed) / candidate.n : null, verdict };
}

function observeJudgeHealth(rule: JudgeHealthRule, rows: readonly ScoreAggregate[]): Observation {
  const total = sum(rows, 'total');
  const errors = sum(rows, 'error_count') + sum(rows, 'not_run_count');
  const errorRate = total > 0 ? errors / total : null;
  // The mean lag over all rows, each row's mean weighted by its number of scores.
  const lagged = rows.filter((r) => r.mean_lag_ms !== null && r.total > 0);
  const lagTotal = lagged.reduce((a, r) => a + r.total, 0);
  const lagMs = lagTotal > 0 ? lagged.reduce((a, r) => a + r.mean_lag_ms! * r.total, 0) / lagTotal : null;
  const enough = total >= rule.min_samples;
  const errorBad = enough && rule.max_error_rate !== undefined && errorRate !== null && errorRate > rule.max_error_rate;
  const lagBad = enough && rule.max_lag_ms !== undefined && lagMs !== null && lagMs > rule.max_lag_ms;
  const broken = errorBad ? 'error_rate' : lagBad ? 'lag' : null;
  const verdict: Verdict = !enough ? 'unknown' : broken ? 'bad' : 'good';
  const reportsLag = broken === 'lag' || (broken === null && rule.max_error_rate === undefined);
  return { kind: 'judge_health', total, errors, errorRate, lagMs, broken, reported: reportsLag ? 'lag' : 'error_rate', value: reportsLag ? lagMs : errorRate, verdict };
}

function observeNoData(_rule: NoDataRule, seen: number): Observation {
  return { kind: 'no_data', value: seen > 0 ? 1 : 0, verdict: seen > 0 ? 'good' : 'bad' };
}

/** Measures a rule's condition from the store's aggregates. Pure. */
function observe(rule: AlertRule, aggregates: RuleAggregates): Observation {
  if (rule.kind === 'problem') throw notWindowed(rule);
  if (rule.kind === 'metric_threshold') {
    if (aggregates.kind !== 'metrics') throw new TypeError('a metric_threshold rule needs unit metrics');
    return observeMetricThreshold(rule, aggregates.rows);
  }
  if (rule.kind === 'metric_regression') {
    if (aggregates.kind !== 'metric_pair') throw new TypeError('a metric_regression rule needs baseline and candidate unit metrics');
    return observeMetricRegression(rule, aggregates.baseline, aggregates.candidate);
  }
  if (rule.kind === 'no_data') {
    if (aggregates.kind !== 'units') throw new TypeError('a no_data rule needs a unit count');
    return observeNoData(rule, aggregates.seen);
  }
  if (rule.kind === 'regression') {
    if (aggregates.kind !== 'pair') throw new TypeError('a regression rule needs baseline and candidate aggregates');
    return observeRegression(rule, aggregates.baseline, aggregates.candidate);
  }
  if (rule.kind === 'agreement') {
    if (aggregates.kind !== 'reviews') throw new TypeError('an agreement rule needs reviews');
    return observeAgreement(rule, aggregates.reviews);
  }
  if (aggregates.kind !== 'single') throw new TypeError(`a ${rule.kind} rule needs one set of aggregates`);
  return rule.kind === 'threshold' ? observeThreshold(rule, aggregates.rows) : observeJudgeHealth(rule, aggregates.rows);
}

/**
 * The state machine, Prometheus-style: ok → pending (bad, fewer than `for_evaluations` in a row) →
 * firing; firing → ok after `for_evaluations` good evaluations in a row (hysteresis both ways;
 * `REGRESSION_RECOVERY_EVALUATIONS` for regressions). "Unknown" (too few scores) never starts or
 * continues a streak toward firing, and never resolves a firing rule: thin traffic neither raises
 * nor clears an alarm. Pure.
 */
export function nextState(rule: AlertRule, prev: AlertState, verdict: Verdict, value: number | null, nowMs: number): { state: AlertState; transition: Transition | null } {
  if (rule.kind === 'problem') throw notWindowed(rule);
  const s: AlertState = { ...prev, last_value: value, last_evaluated_at_ms: nowMs, last_error: null };
  const sequential = rule.kind === 'regression' || rule.kind === 'metric_regression';
  const fireAfter = sequential ? 1 : rule.for_evaluations;
  const resolveAfter = sequential ? REGRESSION_RECOVERY_EVALUATIONS : rule.for_evaluations;

  if (prev.state !== 'firing') {
    if (verdict !== 'bad') return { state: { ...s, state: 'ok', consecutive_bad: 0, consecutive_good: 0 }, transition: null };
    const bad = prev.consecutive_bad + 1;
    if (bad < fireAfter) return { state: { ...s, state: 'pending', consecutive_bad: bad, consecutive_good: 0 }, transition: null };
    return { state: { ...s, state: 'firing', consecutive_bad: bad, consecutive_good: 0, fired_at_ms: nowMs, last_notified_at_ms: nowMs }, transition: 'fire' };
  }

  if (verdict === 'good') {
    const good = prev.consecutive_good + 1;
    if (good >= resolveAfter) return { state: { ...s, state: 'ok', consecutive_bad: 0, consecutive_good: 0, last_notified_at_ms: nowMs }, transition: 'resolve' };
    s.consecutive_good = good;
  } else if (verdict === 'bad') {
    s.consecutive_good = 0;
    s.consecutive_bad = prev.consecutive_bad + 1;
  }
  const remindMs = rule.remind_every !== undefined ? parseDuration(rule.remind_every) : null;
  if (remindMs !== null && nowMs - (prev.last_notified_at_ms ?? prev.fired_at_ms ?? nowMs) >= remindMs) {
    return { state: { ...s, last_notified_at_ms: nowMs }, transition: 'remind' };
  }
  return { state: s, transition: null };
}

/** One evaluation of one rule: observe, then step the state machine. Pure. */
export function evaluateRule(rule: AlertRule, prev: AlertState, aggregates: RuleAggregates, nowMs: number): RuleEvaluation {
  if (rule.kind === 'problem') throw notWindowed(rule);
  const observation = observe(rule, aggregates);
  // Levels (warning, critical) have their own state machine; every other kind shares the one above.
  if (rule.kind === 'metric_threshold' && observation.kind === 'metric_threshold') return { observation, ...nextLevelState(rule, prev, observation.level, observation.value, nowMs) };
  return { observation, ...nextState(rule, prev, observation.verdict, observation.value, nowMs) };
}
