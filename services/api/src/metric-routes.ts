import type { Hono } from 'hono';
import { z } from 'zod';
import { METRIC_GROUPS, UNIT_METRICS, type Store } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { METRIC_STATS, queryMetricSeries, queryMetricSummary, type MetricFilters } from './metric-queries.ts';
import type { Answer as QueryAnswer } from './monitoring-queries.ts';
import { TimeRangeParams, UnitFilterParams, toScoreFilters, type UnitFilterValues } from './query-params.ts';
import { addRoute, type Answer, type ApiEnv } from './route.ts';

// GET /api/v1/metrics/series and /summary: duration, cost, tokens, calls, errors and
// volume of units, percentiles computed in the store.

const MetricFilterParams = {
  ...UnitFilterParams,
  model: z.string().max(200).optional().describe("the unit's model (of its last call); empty selects units without one"),
};

const SeriesQuerySchema = z
  .object({
    metric: z.enum(UNIT_METRICS),
    stat: z.enum(METRIC_STATS).default('p95'),
    bucket: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
    ...TimeRangeParams,
    ...MetricFilterParams,
  })
  .strict();

const SummaryQuerySchema = z
  .object({
    group_by: z.enum(METRIC_GROUPS).default('agent'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    ...TimeRangeParams,
    ...MetricFilterParams,
  })
  .strict();

const nullableNumber = z.number().nullable();
const MetricSeriesSchema = z.object({
  metric: z.enum(UNIT_METRICS),
  stat: z.enum(METRIC_STATS),
  bucket: z.string(),
  from: z.number(),
  to: z.number(),
  points: z.array(z.object({ t: z.number(), value: nullableNumber, n: z.number(), units: z.number() })),
});
const MetricSummarySchema = z.object({
  group_by: z.enum(METRIC_GROUPS),
  from: z.number(),
  to: z.number(),
  groups: z.array(
    z.object({
      group: z.string().nullable(),
      units: z.number(),
      error_rate: nullableNumber,
      duration_ms: z.object({ p50: nullableNumber, p95: nullableNumber, p99: nullableNumber, mean: nullableNumber }),
      cost_usd: z.object({ sum: nullableNumber, mean: nullableNumber, p95: nullableNumber }),
      tokens: z.object({ sum: nullableNumber, mean: nullableNumber }),
      llm_calls: z.object({ mean: nullableNumber }),
      tool_errors: z.object({ sum: nullableNumber }),
    }),
  ),
});

function metricFilters(q: UnitFilterValues & { model?: string | undefined }): MetricFilters {
  const f: MetricFilters = toScoreFilters(q);
  if (q.model !== undefined) f.model = q.model;
  return f;
}

const toAnswer = <T>(r: QueryAnswer<T>): Answer => (r.ok ? { status: 200, body: r.value } : { status: 400, body: { error: r.error } });

export function metricRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store, now: () => number): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/metrics/series',
      tag: 'monitoring',
      role: 'read',
      summary:
        "A metric of units per time bucket by the unit's end time: `metric` (duration_ms, cost_usd, tokens, input_tokens, output_tokens, llm_calls, tool_calls, tool_errors, error_rate, volume) and `stat` (p50, p95, p99, mean, sum, min, max, count), computed in the store. Percentiles interpolate between closest ranks. Default range: the last 120 buckets; empty buckets are included.",
      query: SeriesQuerySchema,
      responses: { 200: { description: 'the series', schema: MetricSeriesSchema } },
    },
    async (c, { query: q }) =>
      toAnswer(await queryMetricSeries(store, now(), { project: c.get('project'), metric: q.metric, stat: q.stat, bucket: q.bucket, from: q.from, to: q.to, filters: metricFilters(q) })),
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/metrics/summary',
      tag: 'monitoring',
      role: 'read',
      summary:
        'Per agent, agent version, environment, service or model (`group_by`) over [from, to) (default: the last 24 h): units, error rate, duration p50/p95/p99 and mean, cost sum/mean/p95, tokens, model calls and tool errors. At most `limit` groups (1–1000), the largest first.',
      query: SummaryQuerySchema,
      responses: { 200: { description: 'the summary', schema: MetricSummarySchema } },
    },
    async (c, { query: q }) =>
      toAnswer(await queryMetricSummary(store, now(), { project: c.get('project'), groupBy: q.group_by, limit: q.limit, from: q.from, to: q.to, filters: metricFilters(q) })),
  );
}
