import { ruleCheck, type AlertPayload, type AlertRule, type WindowRule } from '../../../shared/engines/alerts/index.ts';
import { notWindowed } from './problem-rules.ts';
import type { Observation } from './evaluate-rule.ts';
import { sideFilters } from './rule-queries.ts';
import { alertSide, summarize } from './summary.ts';
import { summarizeMetricRegression, summarizeMetricThreshold } from './metric-summary.ts';

export interface PayloadContext {
  state: 'firing' | 'resolved';
  firedAtMs: number;
  /** Failing unit ids (at most 20 are kept). */
  units: readonly string[];
  /** metric_threshold, firing: the level the rule is at (its state's, which `for_evaluations` may hold back). */
  level?: 'warning' | 'critical';
}

function sentence(rule: WindowRule, o: Observation, ctx: PayloadContext): string {
  if (rule.kind === 'metric_threshold' && o.kind === 'metric_threshold') return summarizeMetricThreshold(rule, o, ctx.state, ctx.level);
  if (rule.kind === 'metric_regression' && o.kind === 'metric_regression') return summarizeMetricRegression(rule, o, ctx.state);
  return summarize(rule, o, ctx.state);
}

/** The webhook body: exactly the fields the issue lists, nothing more. */
export function buildPayload(rule: AlertRule, o: Observation, ctx: PayloadContext): AlertPayload {
  if (rule.kind === 'problem') throw notWindowed(rule);
  const payload: AlertPayload = {
    rule: rule.name,
    state: ctx.state,
    kind: rule.kind,
    check: ruleCheck(rule) ?? null,
    summary: sentence(rule, o, ctx),
    value: o.value,
    window: rule.window,
    units: [...new Set(ctx.units)].slice(0, 20),
    fired_at: new Date(ctx.firedAtMs).toISOString(),
  };
  if (rule.kind === 'threshold') payload.threshold = rule.threshold;
  if (rule.kind === 'agreement') payload.threshold = rule.min_agreement;
  if (rule.kind === 'judge_health') {
    const limit = o.kind === 'judge_health' && o.reported === 'lag' ? rule.max_lag_ms : rule.max_error_rate;
    if (limit !== undefined) payload.threshold = limit;
  }
  if (rule.kind === 'regression' && o.kind === 'regression') {
    payload.baseline = alertSide(sideFilters(rule, rule.baseline), o.baseline);
    payload.candidate = alertSide(sideFilters(rule, rule.candidate), o.candidate);
    payload.p_value = o.pValue;
  }
  if (rule.kind === 'metric_threshold') {
    const level = ctx.state === 'firing' ? (ctx.level ?? 'critical') : undefined;
    const limit = level !== undefined ? (rule[level] ?? rule.critical ?? rule.warning) : (rule.warning ?? rule.critical);
    if (limit !== undefined) payload.threshold = limit;
    if (level !== undefined) payload.level = level;
  }
  if (rule.kind === 'metric_regression' && o.kind === 'metric_regression') payload.p_value = o.pValue;
  return payload;
}
