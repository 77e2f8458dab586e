import type { MetricGroup, ScoreFilters, Store, UnitMetric, UnitMetricRow } from '../../../shared/adapters/store/index.ts';
import { DAY_MS, seriesWindow, type Answer, type Bucket } from './monitoring-queries.ts';

// The metrics answers as functions over the store: the JSON routes and the dashboard
// pages call these, so a page shows exactly the numbers the API answers. Every figure is computed
// in the store (unitMetrics); this only picks the asked statistic and lays out empty buckets.

export const METRIC_STATS = ['p50', 'p95', 'p99', 'mean', 'sum', 'min', 'max', 'count'] as const;
export type MetricStat = (typeof METRIC_STATS)[number];

/** Filters of metric queries: the unit filters and the unit's model. */
export type MetricFilters = Omit<ScoreFilters, 'check' | 'checkVersion' | 'status' | 'passed' | 'method' | 'judgeOnly' | 'project' | 'unitKind'> & { model?: string; unitKind?: 'trace' | 'session' | 'eval' };

export interface MetricPoint {
  t: number;
  /** The statistic over the bucket's units; null when none has a value. */
  value: number | null;
  /** Units with a value. */
  n: number;
  /** Units in the bucket. */
  units: number;
}

export interface MetricSeriesAnswer {
  metric: UnitMetric;
  stat: MetricStat;
  bucket: Bucket;
  from: number;
  to: number;
  points: MetricPoint[];
}

/** The asked statistic of a row: `count` is units with a value (for `volume`, units); `error_rate`'s mean is the rate. */
export function statOf(row: UnitMetricRow, stat: MetricStat): number | null {
  return stat === 'count' ? row.n : row[stat];
}

export async function queryMetricSeries(
  store: Store,
  nowMs: number,
  q: { project: string; metric: UnitMetric; stat: MetricStat; bucket: Bucket; from?: number | undefined; to?: number | undefined; filters: MetricFilters },
): Promise<Answer<MetricSeriesAnswer>> {
  const w = seriesWindow(q.bucket, nowMs, q.from, q.to);
  if (!w.ok) return w;
  const { from, to, bucketMs } = w.value;
  const rows = await store.unitMetrics({ ...q.filters, project: q.project, metric: q.metric, fromMs: from, toMs: to, bucketMs });
  const byT = new Map(rows.map((r) => [r.t, r]));
  const points: MetricPoint[] = [];
  for (let t = Math.floor(from / bucketMs) * bucketMs; t < to; t += bucketMs) {
    const r = byT.get(t);
    points.push(r ? { t, value: statOf(r, q.stat), n: r.n, units: r.units } : { t, value: q.stat === 'count' || q.stat === 'sum' ? 0 : null, n: 0, units: 0 });
  }
  return { ok: true, value: { metric: q.metric, stat: q.stat, bucket: q.bucket, from, to, points } };
}

export interface MetricGroupSummary {
  group: string | null;
  units: number;
  /** Share of units with a span that ended in error. */
  error_rate: number | null;
  duration_ms: { p50: number | null; p95: number | null; p99: number | null; mean: number | null };
  cost_usd: { sum: number | null; mean: number | null; p95: number | null };
  tokens: { sum: number | null; mean: number | null };
  llm_calls: { mean: number | null };
  tool_errors: { sum: number | null };
}

export interface MetricSummaryAnswer {
  group_by: MetricGroup;
  from: number;
  to: number;
  groups: MetricGroupSummary[];
}

/** Per group over [from, to) (default the last 24 h): volume, error rate, latency percentiles, cost and tokens; largest groups first. */
export async function queryMetricSummary(
  store: Store,
  nowMs: number,
  q: { project: string; groupBy: MetricGroup; from?: number | undefined; to?: number | undefined; limit: number; filters: MetricFilters },
): Promise<Answer<MetricSummaryAnswer>> {
  const to = q.to ?? nowMs;
  const from = q.from ?? to - DAY_MS;
  if (from >= to) return { ok: false, error: 'invalid request: from must be before to' };
  const ask = (metric: UnitMetric) => store.unitMetrics({ ...q.filters, project: q.project, metric, groupBy: q.groupBy, fromMs: from, toMs: to, limit: q.limit });
  const [volume, errors, duration, cost, tokens, calls, toolErrors] = await Promise.all(
    (['volume', 'error_rate', 'duration_ms', 'cost_usd', 'tokens', 'llm_calls', 'tool_errors'] as const).map(ask),
  );
  const of = (rows: readonly UnitMetricRow[]) => new Map(rows.map((r) => [r.group, r]));
  const [e, d, c, t, l, te] = [errors, duration, cost, tokens, calls, toolErrors].map(of);
  const groups = volume.map((v): MetricGroupSummary => {
    const g = v.group;
    return {
      group: g,
      units: v.units,
      error_rate: e.get(g)?.mean ?? null,
      duration_ms: { p50: d.get(g)?.p50 ?? null, p95: d.get(g)?.p95 ?? null, p99: d.get(g)?.p99 ?? null, mean: d.get(g)?.mean ?? null },
      cost_usd: { sum: c.get(g)?.sum ?? null, mean: c.get(g)?.mean ?? null, p95: c.get(g)?.p95 ?? null },
      tokens: { sum: t.get(g)?.sum ?? null, mean: t.get(g)?.mean ?? null },
      llm_calls: { mean: l.get(g)?.mean ?? null },
      tool_errors: { sum: te.get(g)?.sum ?? null },
    };
  });
  return { ok: true, value: { group_by: q.groupBy, from, to, groups } };
}
