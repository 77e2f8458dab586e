import { PermanentError } from '../../runtime/errors/index.ts';
import { normalizeUnitQuery, type Condition } from './conditions.ts';
import type { UnitQuery } from './contract.ts';

// Metrics of units, computed in the store: one query shape that both stores render, so
// the API's series and summaries and an alert rule's check ("p95 of duration_ms over the last 15
// minutes for agent X") ask the same question the same way.

/** What is measured per unit; `volume` counts units, `error_rate` is the share of units with an error. */
export const UNIT_METRICS = ['duration_ms', 'cost_usd', 'tokens', 'input_tokens', 'output_tokens', 'llm_calls', 'tool_calls', 'tool_errors', 'error_rate', 'volume'] as const;
export type UnitMetric = (typeof UNIT_METRICS)[number];

export const METRIC_GROUPS = ['agent', 'agent_version', 'environment', 'service', 'model'] as const;
export type MetricGroup = (typeof METRIC_GROUPS)[number];

/** The unit columns behind each group. */
const GROUP_COLUMN: Readonly<Record<MetricGroup, string>> = { agent: 'agent_name', agent_version: 'agent_version', environment: 'environment', service: 'service', model: 'model' };

export interface UnitMetricQuery extends Pick<UnitQuery, 'project' | 'agent' | 'agentVersion' | 'environment' | 'service' | 'unitKind' | 'fromMs' | 'toMs'> {
  metric: UnitMetric;
  /** Matches the unit's `model` (the model of its last call); empty: units without one. */
  model?: string;
  /** Epoch-aligned buckets of this many ms by the unit's end time; unset: one row per group over the window. */
  bucketMs?: number;
  groupBy?: MetricGroup;
  /** Groups kept, largest first (by units): at most 1,000, default 100. */
  limit?: number;
}

/**
 * A metric's figures over the units of one bucket and group: `n` units with a value (all units for
 * `volume`), their sum, mean, min, max, and percentiles by linear interpolation between the closest
 * ranks (the definition of DuckDB's `quantile_cont` and numpy's default: h = (n − 1)·q,
 * (1 − d)·x[⌊h⌋] + d·x[⌊h⌋+1] with d = h − ⌊h⌋, in that order of operations:
 * it decides the last bit). Null figures when `n` is 0.
 */
export interface UnitMetricRow {
  /** Bucket start, epoch ms; null without buckets. */
  t: number | null;
  /** The group's value (null: units without one); null without `groupBy` too. */
  group: string | null;
  /** Units in the bucket and group, with or without a value of the metric. */
  units: number;
  n: number;
  sum: number | null;
  /** Σ v² over the `n` values (the variance of the mean for alert rules' tests: s² = (sum_sq − sum²/n)/(n − 1)). */
  sum_sq: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** A metric's distinct per-unit values over a window with their unit counts (the rank test and shift interval of compare). */
export interface MetricValuesQuery extends Omit<UnitMetricQuery, 'bucketMs' | 'groupBy' | 'limit'> {
  /** At most this many distinct values, smallest first (1 to 1,000,000): the caller asks one more to learn that there were more. */
  maxValues: number;
}

export interface MetricValueCount {
  value: number;
  count: number;
}

/**
 * Decimal digits a metric's values are rounded to (half up: floor(x·10^d + 0.5) / 10^d in both stores) before they are counted: costs to $0.000001, the
 * rest to whole units (ms, tokens, calls). Rounding bounds the distinct values of a large window
 * (a rounded tie is then a tie for the rank test, which corrects for it).
 */
const METRIC_VALUE_DIGITS: Readonly<Record<UnitMetric, number>> = {
  duration_ms: 0,
  cost_usd: 6,
  tokens: 0,
  input_tokens: 0,
  output_tokens: 0,
  llm_calls: 0,
  tool_calls: 0,
  tool_errors: 0,
  error_rate: 0,
  volume: 0,
};

const MAX_METRIC_VALUES = 1_000_000;

/** Validates a values query: the metric query's conditions and the bound on distinct values. */
export function normalizeMetricValuesQuery(q: MetricValuesQuery): NormalizedMetricQuery & { maxValues: number; digits: number } {
  if (!Number.isSafeInteger(q.maxValues) || q.maxValues < 1 || q.maxValues > MAX_METRIC_VALUES) throw new PermanentError(`maxValues must be 1 to ${MAX_METRIC_VALUES}`);
  const { maxValues, ...rest } = q;
  const nq = normalizeMetricQuery(rest);
  return { ...nq, maxValues, digits: METRIC_VALUE_DIGITS[nq.metric] };
}

/** A row of either store's values query. */
export function rowToMetricValue(r: Record<string, unknown>): MetricValueCount {
  return { value: num(r.v), count: num(r.c) };
}

const MAX_METRIC_GROUPS = 1_000;
const MAX_BUCKETS = 10_000;

export interface NormalizedMetricQuery {
  conditions: Condition[];
  empty: boolean;
  metric: UnitMetric;
  bucketMs: number | undefined;
  groupColumn: string | undefined;
  limit: number;
}

/** Validates a metric query (anything wrong is a PermanentError naming it). */
export function normalizeMetricQuery(q: UnitMetricQuery): NormalizedMetricQuery {
  if (!(UNIT_METRICS as readonly string[]).includes(q.metric)) throw new PermanentError(`metric must be one of ${UNIT_METRICS.join(', ')}`);
  if (q.groupBy !== undefined && !(METRIC_GROUPS as readonly string[]).includes(q.groupBy)) throw new PermanentError(`group_by must be one of ${METRIC_GROUPS.join(', ')}`);
  if (q.bucketMs !== undefined && (!Number.isSafeInteger(q.bucketMs) || q.bucketMs < 1000)) throw new PermanentError('bucket must be a whole number of seconds, at least 1 s');
  const limit = q.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_METRIC_GROUPS) throw new PermanentError(`limit must be 1 to ${MAX_METRIC_GROUPS}`);
  const base = normalizeUnitQuery({ ...q, limit: 1 });
  const conditions = [...base.conditions];
  if (q.model !== undefined) {
    if (typeof q.model !== 'string') throw new PermanentError('model must be a string');
    conditions.push(q.model === '' ? { kind: 'null', column: 'model' } : { kind: 'cmp', column: 'model', op: '=', value: q.model });
  }
  if (q.bucketMs !== undefined && q.fromMs !== undefined && q.toMs !== undefined && (q.toMs - q.fromMs) / q.bucketMs > MAX_BUCKETS) {
    throw new PermanentError(`at most ${MAX_BUCKETS} buckets per query: widen the bucket or narrow the window`);
  }
  return { conditions, empty: base.empty, metric: q.metric, bucketMs: q.bucketMs, groupColumn: q.groupBy === undefined ? undefined : GROUP_COLUMN[q.groupBy], limit };
}

/**
 * The per-unit value of a metric as SQL over the units table (the same text in both stores; column
 * names are constants). Null where the unit has no figure (units stored before step figures existed).
 */
export function metricExpression(metric: UnitMetric): string {
  switch (metric) {
    case 'tokens':
      return 'input_tokens + output_tokens';
    case 'error_rate':
      return 'errored';
    case 'volume':
      return '1';
    default:
      return metric;
  }
}

/** Linear interpolation between closest ranks of sorted values: the reference both stores' SQL is tested against. */
export function interpolatedQuantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const d = h - lo;
  return sorted[lo] * (1 - d) + sorted[hi] * d;
}

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN);
const figure = (v: unknown, n: number): number | null => {
  if (n === 0 || v === null || v === undefined) return null;
  const x = num(v);
  return Number.isFinite(x) ? x : null;
};

/** A row of either store's metric query as a UnitMetricRow (ClickHouse sends 64-bit counts as text, DuckDB as bigints). */
export function rowToMetric(r: Record<string, unknown>, nq: NormalizedMetricQuery): UnitMetricRow {
  const n = num(r.n);
  return {
    t: nq.bucketMs === undefined ? null : num(r.t),
    group: nq.groupColumn === undefined || typeof r.g !== 'string' ? null : r.g,
    units: num(r.units),
    n,
    sum: figure(r.total, n),
    sum_sq: figure(r.total_sq, n),
    mean: figure(r.mean, n),
    min: figure(r.lowest, n),
    max: figure(r.highest, n),
    p50: figure(r.p50, n),
    p95: figure(r.p95, n),
    p99: figure(r.p99, n),
  };
}

/**
 * Bucketed and grouped rows cut to the `limit` groups with the most units over the window (an
 * unbucketed query is cut in SQL): a series per group stays bounded however many values a
 * hostile label takes.
 */
export function limitGroups(rows: UnitMetricRow[], nq: NormalizedMetricQuery): UnitMetricRow[] {
  if (nq.bucketMs === undefined || nq.groupColumn === undefined) return rows;
  const totals = new Map<string | null, number>();
  for (const r of rows) totals.set(r.group, (totals.get(r.group) ?? 0) + r.units);
  if (totals.size <= nq.limit) return rows;
  const kept = new Set([...totals].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0]))).slice(0, nq.limit).map(([g]) => g));
  return rows.filter((r) => kept.has(r.group));
}
