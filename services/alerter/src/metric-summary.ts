import type { MetricRegressionRule, MetricThresholdRule } from '../../../shared/engines/alerts/index.ts';
import type { UnitMetric } from '../../../shared/adapters/store/unit-metrics.ts';
import type { MetricObservation } from './metric-rules.ts';
import { describeFilterList, describeSides, formatMs, formatNumber, formatPValue, percent } from './summary.ts';

// The sentences of metric rules' notifications, in the style of summary.ts: the figure in the
// metric's own unit (seconds, dollars, percent), the limit it crossed, and the sample size.

/** A value of a metric as a person reads it: `8.2 s`, `$0.0123`, `2.5%`, `1200`. */
function formatMetric(metric: UnitMetric, x: number): string {
  if (metric === 'duration_ms') return formatMs(x);
  if (metric === 'cost_usd') return `$${Number(x.toPrecision(3))}`;
  if (metric === 'error_rate') return percent(x);
  return formatNumber(x);
}

function subject(rule: MetricThresholdRule): string {
  const scope = describeFilterList(rule.filters);
  const what = rule.stat === 'rate' ? `${rule.metric} per hour` : `${rule.stat} ${rule.metric}`;
  return `${what}${scope ? ` of ${scope}` : ''}`;
}

/** Firing: the level reached and its limit; resolved: back within the lowest level. */
export function summarizeMetricThreshold(rule: MetricThresholdRule, o: Extract<MetricObservation, { kind: 'metric_threshold' }>, state: 'firing' | 'resolved', level: 'warning' | 'critical' | undefined): string {
  const measured = o.value === null ? 'no data' : formatMetric(rule.metric, o.value);
  const side = rule.direction === 'below' ? 'below' : 'above';
  if (state === 'firing') {
    const at = level ?? (o.level === 'warning' ? 'warning' : 'critical');
    const limit = rule[at] ?? rule.critical ?? rule.warning!;
    return `${subject(rule)} over the last ${rule.window} is ${measured}, ${side} the ${at} level of ${formatMetric(rule.metric, limit)} (n = ${o.n})`;
  }
  const lowest = rule.warning !== undefined ? 'warning' : 'critical';
  return `${subject(rule)} over the last ${rule.window} is ${measured}, back within the ${lowest} level of ${formatMetric(rule.metric, rule[lowest]!)} (n = ${o.n})`;
}

export function summarizeMetricRegression(rule: MetricRegressionRule, o: Extract<MetricObservation, { kind: 'metric_regression' }>, state: 'firing' | 'resolved'): string {
  const sides = describeSides(rule);
  const mean = (m: number | null): string => (m === null ? 'no data' : formatMetric(rule.metric, m));
  const verb = state === 'firing' ? 'has' : 'no longer has';
  return `${sides.candidate} ${verb} a significantly higher mean ${rule.metric} than ${sides.baseline}: ${mean(o.candidate.mean)} vs ${mean(o.baseline.mean)}, n = ${o.candidate.n} vs ${o.baseline.n}, ${formatPValue(o.pValue)}`;
}
