import { parseDuration, type AlertFilters, type AlertRule } from '../../../shared/engines/alerts/index.ts';
import { notWindowed } from './problem-rules.ts';
import type { AggregateQuery, ScoreQuery, UnitQuery } from '../../../shared/adapters/store/index.ts';
import type { UnitMetricQuery } from '../../../shared/adapters/store/unit-metrics.ts';
import { toScoreFilters } from './alert-filters.ts';
import { metricRegressionQueries, metricThresholdQuery } from './metric-rules.ts';

/** The store queries one evaluation of a rule needs: one aggregate, or two for a regression. */
export type RuleQueries =
  | { kind: 'single'; query: AggregateQuery }
  | { kind: 'pair'; baseline: AggregateQuery; candidate: AggregateQuery }
  | { kind: 'units'; query: UnitQuery }
  | { kind: 'reviews'; fromMs: number }
  | { kind: 'metrics'; query: UnitMetricQuery }
  | { kind: 'metric_pair'; baseline: UnitMetricQuery; candidate: UnitMetricQuery };

/** A score query with filters (`ScoreQuery` carries the `ScoreFilters` fields). */
export type FilteredScoreQuery = ScoreQuery;

/** The filters of a regression side: the rule's filters, overridden by the side's own. */
export function sideFilters(rule: AlertRule, side: AlertFilters): AlertFilters {
  if (rule.kind === 'problem') throw notWindowed(rule);
  return { ...rule.filters, ...side };
}

function windowMs(rule: AlertRule): number {
  if (rule.kind === 'problem') throw notWindowed(rule);
  return parseDuration(rule.window);
}

/** Aggregates over the rule's window `[now − window, now)` on the units' end time, always within the rule's project. */
export function ruleQueries(rule: AlertRule, nowMs: number): RuleQueries {
  if (rule.kind === 'problem') throw notWindowed(rule);
  const range = { fromMs: nowMs - windowMs(rule), toMs: nowMs };
  const scope = { ...toScoreFilters(rule.filters), project: rule.project, ...range };
  switch (rule.kind) {
    case 'threshold':
      return { kind: 'single', query: { ...scope, check: rule.check } };
    case 'judge_health':
      return { kind: 'single', query: { ...scope, judgeOnly: true, ...(rule.check !== undefined ? { check: rule.check } : {}) } };
    case 'agreement':
      return { kind: 'reviews', fromMs: range.fromMs };
    case 'regression':
      return {
        kind: 'pair',
        baseline: { ...toScoreFilters(sideFilters(rule, rule.baseline)), project: rule.project, check: rule.check, ...range },
        candidate: { ...toScoreFilters(sideFilters(rule, rule.candidate)), project: rule.project, check: rule.check, ...range },
      };
    case 'no_data':
      // One unit is enough to say the agent is not silent.
      return { kind: 'units', query: { ...toScoreFilters(rule.filters), project: rule.project, ...range, limit: 1 } };
    case 'metric_threshold':
      return { kind: 'metrics', query: metricThresholdQuery(rule, nowMs) };
    case 'metric_regression':
      return { kind: 'metric_pair', ...metricRegressionQueries(rule, nowMs) };
  }
}

/**
 * Failing units to name in a notification (at most 20 scores, newest first): failed scores of the
 * check (the candidate's, for a regression), or errored judge scores for judge health. Bounded by
 * the unit's end time, exactly as the aggregates are, so the units are among those counted.
 */
export function failingUnitsQuery(rule: AlertRule, nowMs: number): FilteredScoreQuery | null {
  if (rule.kind === 'problem') throw notWindowed(rule);
  const range = { endFromMs: nowMs - windowMs(rule), endToMs: nowMs, limit: 20 };
  switch (rule.kind) {
    case 'threshold':
      return { ...toScoreFilters(rule.filters), project: rule.project, check: rule.check, status: 'ok', passed: false, ...range };
    case 'agreement':
      // The units people marked wrong come with the observation; this is the check's failures.
      return { project: rule.project, check: rule.check, status: 'ok', passed: false, ...range };
    case 'regression':
      return { ...toScoreFilters(sideFilters(rule, rule.candidate)), project: rule.project, check: rule.check, status: 'ok', passed: false, ...range };
    case 'judge_health':
      return { ...toScoreFilters(rule.filters), project: rule.project, judgeOnly: true, status: 'error', ...(rule.check !== undefined ? { check: rule.check } : {}), ...range };
    case 'no_data':
    case 'metric_threshold':
    case 'metric_regression':
      // Silence has no failing units to name, and a metric is a figure of all units, not of failing ones.
      return null;
  }
}
