import type { AggregateQuery, ScoreAggregate, ScoreFilters, Store } from '../../../shared/adapters/store/index.ts';
import { compareMetrics, type MetricComparison } from './compare-metrics.ts';
import { EMPTY_AGGREGATE, compareCheck, rateStats, seriesPoints, type Comparison, type RateStats, type SeriesPoint } from './monitoring.ts';
import { toScoreFilters, type UnitFilterValues } from './query-params.ts';

// The monitoring answers (series, summary, compare) as functions over the store: the JSON routes
// and the dashboard pages call these, so a page shows exactly the numbers the API answers.

export const BUCKETS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Bucket = keyof typeof BUCKETS;
/** Points one series answer may hold: 1m buckets over a week are too many; 1h over a year is fine. */
const MAX_POINTS = 10_000;
const DEFAULT_POINTS = 120;
export const DAY_MS = 86_400_000;
const MAX_FAILING_UNITS = 20;

export type Answer<T> = { ok: true; value: T } | { ok: false; error: string };

export interface SeriesInput {
  project: string;
  check: string;
  bucket: Bucket;
  from?: number | undefined;
  to?: number | undefined;
  filters: ScoreFilters;
}

export interface SeriesAnswer {
  check: string;
  bucket: Bucket;
  from: number;
  to: number;
  points: SeriesPoint[];
}

/** The window of a series: the given bounds, else the last 120 buckets; refused when too many points. */
export function seriesWindow(bucket: Bucket, nowMs: number, from?: number, to?: number): Answer<{ from: number; to: number; bucketMs: number }> {
  const bucketMs = BUCKETS[bucket];
  const end = to ?? Math.ceil((nowMs + 1) / bucketMs) * bucketMs;
  const start = from ?? end - DEFAULT_POINTS * bucketMs;
  if (start >= end) return { ok: false, error: 'invalid request: from must be before to' };
  if ((end - start) / bucketMs > MAX_POINTS) {
    return { ok: false, error: `invalid request: ${bucket} buckets over that range make more than ${MAX_POINTS} points; use a larger bucket or a shorter range` };
  }
  return { ok: true, value: { from: start, to: end, bucketMs } };
}

export async function querySeries(store: Store, nowMs: number, q: SeriesInput): Promise<Answer<SeriesAnswer>> {
  const w = seriesWindow(q.bucket, nowMs, q.from, q.to);
  if (!w.ok) return w;
  const { from, to, bucketMs } = w.value;
  const aggregates = await store.aggregateScores({ ...q.filters, project: q.project, check: q.check, fromMs: from, toMs: to, bucketMs });
  return { ok: true, value: { check: q.check, bucket: q.bucket, from, to, points: seriesPoints(q.check, aggregates, bucketMs, from, to) } };
}

export interface SummaryInput {
  project: string;
  from?: number | undefined;
  to?: number | undefined;
  filters: ScoreFilters;
}

export interface SummaryAnswer {
  from: number;
  to: number;
  previous: { from: number; to: number };
  checks: Array<RateStats & { check: string; previous: RateStats }>;
}

/** Per check over [from, to) (default: the last 24 h) and over the previous window of equal length. */
export async function querySummary(store: Store, nowMs: number, q: SummaryInput): Promise<Answer<SummaryAnswer>> {
  const to = q.to ?? nowMs + 1;
  const from = q.from ?? to - DAY_MS;
  if (from >= to) return { ok: false, error: 'invalid request: from must be before to' };
  const prevFrom = from - (to - from);
  const filters: ScoreFilters = { ...q.filters, project: q.project };
  const [current, previous] = await Promise.all([store.aggregateScores({ ...filters, fromMs: from, toMs: to }), store.aggregateScores({ ...filters, fromMs: prevFrom, toMs: from })]);
  const prevBy = new Map(previous.map((a) => [a.check, a]));
  const curBy = new Map(current.map((a) => [a.check, a]));
  const checks = [...new Set([...curBy.keys(), ...prevBy.keys()])].sort();
  return {
    ok: true,
    value: {
      from,
      to,
      previous: { from: prevFrom, to: from },
      checks: checks.map((check) => ({ check, ...rateStats(curBy.get(check) ?? EMPTY_AGGREGATE(check)), previous: rateStats(prevBy.get(check) ?? EMPTY_AGGREGATE(check)) })),
    },
  };
}

export interface CompareInput {
  project: string;
  a: UnitFilterValues;
  b: UnitFilterValues;
  alpha: number;
  check?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  /** Also compare other tools' evaluations (`method: external`); by default only our own checks. */
  includeExternal?: boolean;
}

/** The methods of our own checks: what compare reads unless asked for external scores too. */
const OWN_METHODS = ['deterministic', 'model', 'hybrid', 'code'] as const;

export interface CompareAnswer {
  alpha: number;
  a: Record<string, string>;
  b: Record<string, string>;
  from: number | null;
  to: number | null;
  comparisons: Array<Comparison & { failing_units: Array<{ unit_id: string; href: string }> }>;
  /** B against A on duration, cost and tokens (compare-metrics.ts). */
  metrics: MetricComparison[];
}

/** Time bounds for an aggregate, only those given. */
const range = (from: number | undefined, to: number | undefined): Partial<Pick<AggregateQuery, 'fromMs' | 'toMs'>> => ({
  ...(from !== undefined ? { fromMs: from } : {}),
  ...(to !== undefined ? { toMs: to } : {}),
});

/** B against A per check, most worse first, with B's failing units. */
export async function queryCompare(store: Store, q: CompareInput): Promise<Answer<CompareAnswer>> {
  const { a, b, project } = q;
  if (JSON.stringify(a) === JSON.stringify(b)) {
    return { ok: false, error: 'invalid request: give a.<filter> and/or b.<filter> parameters that select different units (e.g. a.agent_version=v1&b.agent_version=v2)' };
  }
  const base: AggregateQuery = { project, ...range(q.from, q.to), ...(q.check !== undefined ? { check: q.check } : {}), ...(q.includeExternal === true ? {} : { methods: OWN_METHODS }) };
  const qa: AggregateQuery = { ...base, ...toScoreFilters(a) };
  const qb: AggregateQuery = { ...base, ...toScoreFilters(b) };
  const [aggA, aggB, metrics] = await Promise.all([store.aggregateScores(qa), store.aggregateScores(qb), compareMetrics(store, q)]);
  const byA = new Map(aggA.map((x) => [x.check, x]));
  const byB = new Map(aggB.map((x) => [x.check, x]));
  const checks = [...new Set([...byA.keys(), ...byB.keys()])].sort();
  const needsCounts = (x: ScoreAggregate | undefined): boolean => x !== undefined && x.judged === 0 && x.valued > 0;
  const scoreChecks = checks.filter((ch) => needsCounts(byA.get(ch)) || needsCounts(byB.get(ch)));
  const [countsA, countsB] = scoreChecks.length > 0 ? await Promise.all([store.valueCounts(qa), store.valueCounts(qb)]) : [[], []];

  const comparisons = await Promise.all(
    checks.map(async (check) => {
      const ca = byA.get(check) ?? EMPTY_AGGREGATE(check);
      const cb = byB.get(check) ?? EMPTY_AGGREGATE(check);
      const counts = scoreChecks.includes(check) ? { a: countsA.filter((v) => v.check === check), b: countsB.filter((v) => v.check === check) } : null;
      const cmp: Comparison = compareCheck(check, ca, cb, q.alpha, counts);
      const failing =
        cb.judged > cb.passed
          ? await store.queryScores({ ...toScoreFilters(b), project, check, status: 'ok', passed: false, limit: MAX_FAILING_UNITS, ...(q.from !== undefined ? { endFromMs: q.from } : {}), ...(q.to !== undefined ? { endToMs: q.to } : {}) })
          : [];
      return { ...cmp, failing_units: failing.map((s) => ({ unit_id: s.unit_id, href: `/api/v1/units/${encodeURIComponent(s.unit_id)}` })) };
    }),
  );
  comparisons.sort((x, y) => (x.difference.value ?? 0) - (y.difference.value ?? 0) || x.check.localeCompare(y.check));
  const named = (f: UnitFilterValues): Record<string, string> => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)]));
  return { ok: true, value: { alpha: q.alpha, a: named(a), b: named(b), from: q.from ?? null, to: q.to ?? null, comparisons, metrics } };
}
