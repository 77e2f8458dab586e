import { wilsonInterval } from '../../../shared/engines/stats/index.ts';
import type { AlertFilters, AlertRule, AlertSide } from '../../../shared/engines/alerts/index.ts';
import type { Counts, Observation } from './evaluate-rule.ts';
import { summarizeAgreement } from './agreement-rule.ts';
import { sideFilters } from './rule-queries.ts';

// One plain sentence per notification. Rates are percentages with one decimal and their Wilson 95%
// interval in brackets; p-values below 0.001 are written "p < 0.001".

export function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function interval(lower: number, upper: number): string {
  return `[${(lower * 100).toFixed(1)}–${(upper * 100).toFixed(1)}]`;
}

/** A rate with its Wilson interval: `29.5% [25.3–34.1]`. */
function rateWithInterval(successes: number, total: number): string {
  const w = wilsonInterval(successes, total);
  return `${percent(w.proportion)} ${interval(w.lower, w.upper)}`;
}

export function formatPValue(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

export function formatNumber(x: number): string {
  return Math.abs(x) >= 1_000 ? x.toFixed(0) : String(Number(x.toPrecision(3)));
}

export function formatMs(ms: number): string {
  return ms >= 1_000 ? `${(ms / 1_000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

const FILTER_KEYS = ['agent', 'agent_version', 'environment', 'service', 'unit_kind'] as const;

/** `agent=booking-agent, environment=prod`; empty for no filters. */
export function describeFilterList(f: (AlertFilters & { model?: string }) | undefined): string {
  const model = f?.model !== undefined ? `model=${f.model}` : '';
  return [describeFilters(f), model].filter(Boolean).join(', ');
}

function describeFilters(f: AlertFilters | undefined): string {
  return FILTER_KEYS.filter((k) => f?.[k] !== undefined)
    .map((k) => `${k}=${f![k]}`)
    .join(', ');
}

/**
 * How the two sides of a regression read in a sentence: "version v2 of booking-agent" and "v1"
 * when they differ only in the agent version; otherwise the differing filters, `environment=canary`.
 */
export function describeSides(rule: Extract<AlertRule, { kind: 'regression' | 'metric_regression' }>): { candidate: string; baseline: string } {
  const b = sideFilters(rule, rule.baseline);
  const c = sideFilters(rule, rule.candidate);
  const differing = FILTER_KEYS.filter((k) => b[k] !== c[k]);
  const common: AlertFilters = Object.fromEntries(FILTER_KEYS.filter((k) => b[k] === c[k] && b[k] !== undefined).map((k) => [k, b[k]]));
  const agent = common.agent !== undefined ? ` of ${common.agent}` : '';
  if (differing.length === 1 && differing[0] === 'agent_version' && b.agent_version !== undefined && c.agent_version !== undefined) {
    return { candidate: `version ${c.agent_version}${agent}`, baseline: b.agent_version };
  }
  const pick = (f: AlertFilters): AlertFilters => Object.fromEntries(differing.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]));
  return { candidate: `${describeFilters(pick(c)) || 'all units'}${agent}`, baseline: describeFilters(pick(b)) || 'all units' };
}

function failureRate(c: Counts): string {
  return rateWithInterval(c.n - c.passed, c.n);
}

/** The sentence of a notification: what is wrong (firing) or that it is no longer (resolved). Metric rules: metric-summary.ts. */
export function summarize(rule: AlertRule, o: Observation, state: 'firing' | 'resolved'): string {
  const firing = state === 'firing';
  if (o.kind === 'regression' && rule.kind === 'regression') {
    const sides = describeSides(rule);
    const verb = firing ? 'fails' : 'no longer fails';
    return `${sides.candidate} ${verb} ${rule.check} significantly more often than ${sides.baseline}: ${failureRate(o.candidate)} vs ${failureRate(o.baseline)}, n = ${o.candidate.n} vs ${o.baseline.n}, ${formatPValue(o.pValue)}`;
  }
  if (o.kind === 'threshold' && rule.kind === 'threshold') {
    const scope = describeFilters(rule.filters);
    const subject = `${rule.check} ${o.metric === 'mean' ? 'mean' : 'pass rate'}${scope ? ` of ${scope}` : ''}`;
    const measured = o.value === null ? 'no data' : o.metric === 'mean' ? `${formatNumber(o.value)}${meanInterval(o)}` : rateWithInterval(o.passed, o.n);
    const limit = o.metric === 'mean' ? formatNumber(rule.threshold) : percent(rule.threshold);
    return `${subject} ${measured} over the last ${rule.window} is ${firing ? 'below' : 'back at or above'} ${limit} (n = ${o.n})`;
  }
  if (o.kind === 'judge_health' && rule.kind === 'judge_health') {
    const scope = [rule.check !== undefined ? `check=${rule.check}` : '', describeFilters(rule.filters)].filter(Boolean).join(', ');
    const scores = `judge scores${scope ? ` of ${scope}` : ''}`;
    const parts: string[] = [];
    const errorPart = rule.max_error_rate !== undefined && o.errorRate !== null && (!firing || o.broken === 'error_rate');
    const lagPart = rule.max_lag_ms !== undefined && o.lagMs !== null && (!firing || (rule.max_lag_ms !== undefined && o.lagMs > rule.max_lag_ms));
    if (errorPart) parts.push(`${percent(o.errorRate!)} of ${o.total} ${scores} errored or were not run over the last ${rule.window}, ${firing ? 'above' : 'within'} the limit of ${percent(rule.max_error_rate!)}`);
    if (lagPart) parts.push(`${parts.length ? 'scoring' : `scoring of ${scores}`} trails the agents by ${formatMs(o.lagMs!)} on average over the last ${rule.window}, ${firing ? 'above' : 'within'} the limit of ${formatMs(rule.max_lag_ms!)} (n = ${o.total})`);
    return parts.length > 0 ? parts.join('; ') : `${scores}: no data over the last ${rule.window}`;
  }
  if (o.kind === 'no_data' && rule.kind === 'no_data') {
    const scope = describeFilters(rule.filters);
    const from = scope ? ` from ${scope}` : '';
    return firing ? `no unit${from} ended in the last ${rule.window}: the agent may be down or its exporter broken` : `units${from} arrive again (at least one in the last ${rule.window})`;
  }
  if (o.kind === 'agreement' && rule.kind === 'agreement') return summarizeAgreement(rule, o, firing);
  throw new TypeError(`observation of kind ${o.kind} does not belong to a ${rule.kind} rule`);
}

/** ` [0.58–0.66]`: a normal-approximation 95% interval of a mean, empty with fewer than 2 values. */
function meanInterval(o: Extract<Observation, { kind: 'threshold' }>): string {
  if (o.n < 2 || o.value === null) return '';
  const variance = Math.max(0, (o.valueSqSum - (o.valueSum * o.valueSum) / o.n) / (o.n - 1));
  const half = 1.96 * Math.sqrt(variance / o.n);
  return ` [${formatNumber(o.value - half)}–${formatNumber(o.value + half)}]`;
}

/** One side of a regression as the payload reports it. */
export function alertSide(filters: AlertFilters, c: Counts): AlertSide {
  const failed = c.n - c.passed;
  const w = wilsonInterval(failed, c.n);
  return { filters, n: c.n, failed, failure_rate: c.n > 0 ? failed / c.n : null, interval: [w.lower, w.upper] };
}
