import { sequentialIncrease } from '../../../shared/engines/stats/index.ts';
import { parseDuration, type MetricFilters, type MetricRegressionRule, type MetricThresholdRule } from '../../../shared/engines/alerts/index.ts';
import type { UnitMetricQuery, UnitMetricRow } from '../../../shared/adapters/store/unit-metrics.ts';
import { toScoreFilters } from './alert-filters.ts';

// Issue 26: rules on unit metrics (duration, cost, tokens, calls, error rate, volume), computed in
// the store by `unitMetrics` over the rule's window. Kept apart from the score rules' code: the
// threshold kind has levels (metric-levels.ts), the regression kind compares means, not pass rates.

export type MetricLevel = 'ok' | 'warning' | 'critical';

/** One side of a metric regression: units with a value and their mean. */
interface MetricSide {
  n: number;
  mean: number | null;
}

export type MetricObservation =
  | {
      kind: 'metric_threshold';
      /** The rule's stat over the window; null without a unit with a value. */
      value: number | null;
      n: number;
      /** The level the value reaches; null when there are fewer than `min_samples` values (no verdict). */
      level: MetricLevel | null;
      verdict: 'bad' | 'good' | 'unknown';
    }
  | { kind: 'metric_regression'; baseline: MetricSide; candidate: MetricSide; pValue: number; value: number | null; verdict: 'bad' | 'good' | 'unknown' };

/** The rule's filters as a metric query's: the score filters' fields, plus the unit's model. */
function toMetricScope(f: MetricFilters | undefined): Pick<UnitMetricQuery, 'agent' | 'agentVersion' | 'environment' | 'service' | 'unitKind' | 'model'> {
  return { ...toScoreFilters(f), ...(f?.model !== undefined ? { model: f.model } : {}) };
}

/** The store query of a metric threshold rule: one row over `[now − window, now)` by the units' end time. */
export function metricThresholdQuery(rule: MetricThresholdRule, nowMs: number): UnitMetricQuery {
  return { ...toMetricScope(rule.filters), project: rule.project, metric: rule.metric, fromMs: nowMs - parseDuration(rule.window), toMs: nowMs };
}

/** The two store queries of a metric regression: each side's filters over the rule's, same window. */
export function metricRegressionQueries(rule: MetricRegressionRule, nowMs: number): { baseline: UnitMetricQuery; candidate: UnitMetricQuery } {
  const range = { project: rule.project, metric: rule.metric, fromMs: nowMs - parseDuration(rule.window), toMs: nowMs };
  return {
    baseline: { ...toMetricScope({ ...rule.filters, ...rule.baseline }), ...range },
    candidate: { ...toMetricScope({ ...rule.filters, ...rule.candidate }), ...range },
  };
}

/** Sums are 0 over an empty window (no cost, no units), where a percentile or mean has no value. */
const additive = (rule: MetricThresholdRule): boolean => rule.stat === 'sum' || rule.stat === 'rate';

/** The rule's stat from the store's row; `rate` is the sum per hour of the window. */
function metricStat(rule: MetricThresholdRule, row: UnitMetricRow | undefined): number | null {
  if (!row || row.n === 0) return additive(rule) ? 0 : null;
  if (rule.stat === 'rate') return (row.sum ?? 0) / (parseDuration(rule.window) / 3_600_000);
  return row[rule.stat];
}

/** The level a value reaches: beyond `critical`, else beyond `warning` (strictly), in the rule's direction. */
function levelOf(rule: MetricThresholdRule, value: number): MetricLevel {
  const beyond = (limit: number | undefined): boolean => limit !== undefined && (rule.direction === 'below' ? value < limit : value > limit);
  if (beyond(rule.critical)) return 'critical';
  if (beyond(rule.warning)) return 'warning';
  return 'ok';
}

export function observeMetricThreshold(rule: MetricThresholdRule, rows: readonly UnitMetricRow[]): MetricObservation {
  const row = rows[0];
  const n = row?.n ?? 0;
  const value = metricStat(rule, row);
  // `min_samples` guards percentiles and means against a handful of values; a sum is exact at any n
  // (a volume rule with direction `below` must be able to fire on an empty window).
  const level = value === null || (!additive(rule) && n < rule.min_samples) ? null : levelOf(rule, value);
  return { kind: 'metric_threshold', value, n, level, verdict: level === null ? 'unknown' : level === 'ok' ? 'good' : 'bad' };
}

const summaryOf = (row: UnitMetricRow | undefined): { n: number; sum: number; sumSq: number } =>
  row && row.n > 0 ? { n: row.n, sum: row.sum ?? 0, sumSq: row.sum_sq ?? 0 } : { n: 0, sum: 0, sumSq: 0 };

/**
 * The candidate's mean significantly above the baseline's: the mSPRT on the difference of means
 * (shared/engines/stats sequentialIncrease), always valid under re-evaluation every interval.
 */
export function observeMetricRegression(rule: MetricRegressionRule, baselineRows: readonly UnitMetricRow[], candidateRows: readonly UnitMetricRow[]): MetricObservation {
  const a = summaryOf(baselineRows[0]);
  const b = summaryOf(candidateRows[0]);
  const d = sequentialIncrease({ a, b }, { alpha: rule.alpha, minSamples: rule.min_samples });
  const insufficient = a.n < rule.min_samples || b.n < rule.min_samples;
  const side = (s: typeof a): MetricSide => ({ n: s.n, mean: s.n > 0 ? s.sum / s.n : null });
  return { kind: 'metric_regression', baseline: side(a), candidate: side(b), pValue: d.pValue, value: side(b).mean, verdict: insufficient ? 'unknown' : d.fire ? 'bad' : 'good' };
}
