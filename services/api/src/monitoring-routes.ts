import type { Hono } from 'hono';
import { z } from 'zod';
import type { AggregateQuery, ScoreAggregate, ScoreFilters, Store } from '../../../shared/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { CompareSchema, SeriesSchema, SummarySchema } from './api-schemas.ts';
import { EMPTY_AGGREGATE, compareCheck, rateStats, seriesPoints, type Comparison } from './monitoring.ts';
import { TimeRangeParams, UNIT_FILTER_NAMES, UnitFilterParams, toScoreFilters, type UnitFilterValues } from './query-params.ts';
import { addRoute, type ApiEnv } from './route.ts';

const BUCKETS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
/** Points one series answer may hold: 1m buckets over a week are too many; 1h over a year is fine. */
const MAX_POINTS = 10_000;
const DEFAULT_POINTS = 120;
const DAY = 86_400_000;
const MAX_FAILING_UNITS = 20;

const SeriesQuerySchema = z
  .object({
    check: z.string().min(1).max(200),
    bucket: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
    ...TimeRangeParams,
    ...UnitFilterParams,
  })
  .strict();

const SummaryQuerySchema = z.object({ ...TimeRangeParams, ...UnitFilterParams }).strict();

// Compare takes `a.<filter>` and `b.<filter>` for the two sides, and unprefixed filters for both.
const sideParams = (side: 'a' | 'b') => Object.fromEntries(UNIT_FILTER_NAMES.map((k) => [`${side}.${k}`, UnitFilterParams[k]])) as Record<string, z.ZodType>;
const CompareQuerySchema = z
  .object({
    check: z.string().min(1).max(200).optional().describe('one check; omit for every check'),
    alpha: z.coerce.number().gt(0).lt(1).default(0.05),
    ...TimeRangeParams,
    ...UnitFilterParams,
    ...sideParams('a'),
    ...sideParams('b'),
  })
  .strict();

function side(q: Record<string, unknown>, prefix: 'a' | 'b'): UnitFilterValues {
  const out: Record<string, unknown> = {};
  for (const k of UNIT_FILTER_NAMES) {
    const v = q[`${prefix}.${k}`] ?? q[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Time bounds for an aggregate, only those given. */
const range = (from: number | undefined, to: number | undefined): Partial<Pick<AggregateQuery, 'fromMs' | 'toMs'>> => ({
  ...(from !== undefined ? { fromMs: from } : {}),
  ...(to !== undefined ? { toMs: to } : {}),
});

export function monitoringRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store, now: () => number): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/series',
      tag: 'monitoring',
      role: 'read',
      summary:
        "A check's pass rate (95% Wilson interval) and mean per time bucket, by the unit's end time. Only `ok` scores count towards rates. Default range: the last 120 buckets; empty buckets are included.",
      query: SeriesQuerySchema,
      responses: { 200: { description: 'the series', schema: SeriesSchema } },
    },
    async (c, { query: q }) => {
      const bucketMs = BUCKETS[q.bucket];
      const to = q.to ?? Math.ceil((now() + 1) / bucketMs) * bucketMs;
      const from = q.from ?? to - DEFAULT_POINTS * bucketMs;
      if (from >= to) return { status: 400, body: { error: 'invalid request: from must be before to' } };
      if ((to - from) / bucketMs > MAX_POINTS) {
        return { status: 400, body: { error: `invalid request: ${q.bucket} buckets over that range make more than ${MAX_POINTS} points; use a larger bucket or a shorter range` } };
      }
      const aggregates = await store.aggregateScores({ ...toScoreFilters(q), project: c.get('project'), check: q.check, fromMs: from, toMs: to, bucketMs });
      return { status: 200, body: { check: q.check, bucket: q.bucket, from, to, points: seriesPoints(q.check, aggregates, bucketMs, from, to) } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/checks/summary',
      tag: 'monitoring',
      role: 'read',
      summary: 'Per check over [from, to) (default: the last 24 h, by unit end time): n, pass rate with its 95% Wilson interval, mean, error and not_run counts, and the same for the previous window of equal length.',
      query: SummaryQuerySchema,
      responses: { 200: { description: 'the summary', schema: SummarySchema } },
    },
    async (c, { query: q }) => {
      const to = q.to ?? now() + 1;
      const from = q.from ?? to - DAY;
      if (from >= to) return { status: 400, body: { error: 'invalid request: from must be before to' } };
      const prevFrom = from - (to - from);
      const filters: ScoreFilters = { ...toScoreFilters(q), project: c.get('project') };
      const [current, previous] = await Promise.all([
        store.aggregateScores({ ...filters, fromMs: from, toMs: to }),
        store.aggregateScores({ ...filters, fromMs: prevFrom, toMs: from }),
      ]);
      const prevBy = new Map(previous.map((a) => [a.check, a]));
      const checks = [...new Set([...current.map((a) => a.check), ...previous.map((a) => a.check)])].sort();
      const curBy = new Map(current.map((a) => [a.check, a]));
      return {
        status: 200,
        body: {
          from,
          to,
          previous: { from: prevFrom, to: from },
          checks: checks.map((check) => ({ check, ...rateStats(curBy.get(check) ?? EMPTY_AGGREGATE(check)), previous: rateStats(prevBy.get(check) ?? EMPTY_AGGREGATE(check)) })),
        },
      };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/compare',
      tag: 'monitoring',
      role: 'read',
      summary:
        'B against A per check (e.g. `a.agent_version=v1&b.agent_version=v2`): both rates with 95% intervals, the test (two-proportion z; Fisher exact when an expected cell is under 5; Mann–Whitney U for score checks), p-value, the difference B − A with its 95% interval, the verdict at `alpha`, and links to B\'s failing units. Sorted most worse first.',
      query: CompareQuerySchema,
      responses: { 200: { description: 'the comparison', schema: CompareSchema } },
    },
    async (c, { query }) => {
      const q = query as z.output<typeof CompareQuerySchema> & Record<string, unknown>;
      const a = side(q, 'a');
      const b = side(q, 'b');
      if (JSON.stringify(a) === JSON.stringify(b)) {
        return { status: 400, body: { error: 'invalid request: give a.<filter> and/or b.<filter> parameters that select different units (e.g. a.agent_version=v1&b.agent_version=v2)' } };
      }
      const project = c.get('project');
      const base: AggregateQuery = { project, ...range(q.from, q.to), ...(q.check !== undefined ? { check: q.check } : {}) };
      const qa: AggregateQuery = { ...base, ...toScoreFilters(a) };
      const qb: AggregateQuery = { ...base, ...toScoreFilters(b) };
      const [aggA, aggB] = await Promise.all([store.aggregateScores(qa), store.aggregateScores(qb)]);
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
      return { status: 200, body: { alpha: q.alpha, a: named(a), b: named(b), from: q.from ?? null, to: q.to ?? null, comparisons } };
    },
  );
}
