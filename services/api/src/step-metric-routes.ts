import type { Hono } from 'hono';
import { z } from 'zod';
import { STEP_KINDS, STEP_METRICS, type Store } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { METRIC_STATS, statOf, type MetricPoint } from './metric-queries.ts';
import { DAY_MS, seriesWindow } from './monitoring-queries.ts';
import { TimeRangeParams, UnitFilterParams, toScoreFilters } from './query-params.ts';
import { addRoute, type ApiEnv } from './route.ts';

// GET /api/v1/metrics/steps/series and /summary: figures per tool and per model across
// all the calls of all units (p95 latency of the tool `search`, cost per model), computed in the
// store from the units' steps.

const StepParams = {
  kind: z.enum(STEP_KINDS).describe('`tool` (tool executions) or `llm` (model calls)'),
  metric: z.enum(STEP_METRICS).default('latency_ms'),
  ...UnitFilterParams,
};

const SeriesQuerySchema = z
  .object({
    ...StepParams,
    name: z.string().max(200).optional().describe('only steps of this tool (kind=tool) or model (kind=llm)'),
    stat: z.enum(METRIC_STATS).default('p95'),
    bucket: z.enum(['1m', '5m', '1h', '1d']).default('1h'),
    ...TimeRangeParams,
  })
  .strict();

const SummaryQuerySchema = z
  .object({ ...StepParams, limit: z.coerce.number().int().min(1).max(1000).default(100), ...TimeRangeParams })
  .strict();

const nullableNumber = z.number().nullable();
const StepSeriesSchema = z.object({
  kind: z.enum(STEP_KINDS),
  metric: z.enum(STEP_METRICS),
  stat: z.enum(METRIC_STATS),
  bucket: z.string(),
  from: z.number(),
  to: z.number(),
  points: z.array(z.object({ t: z.number(), value: nullableNumber, n: z.number(), units: z.number() })),
});
const Figures = { calls: z.number(), n: z.number(), sum: nullableNumber, mean: nullableNumber, min: nullableNumber, max: nullableNumber, p50: nullableNumber, p95: nullableNumber, p99: nullableNumber };
const StepSummarySchema = z.object({
  kind: z.enum(STEP_KINDS),
  metric: z.enum(STEP_METRICS),
  from: z.number(),
  to: z.number(),
  groups: z.array(z.object({ name: z.string().nullable(), ...Figures })),
});

export function stepMetricRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store, now: () => number): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/metrics/steps/series',
      tag: 'monitoring',
      role: 'read',
      summary:
        "A metric of steps across units per time bucket (by the unit's end time): `kind` tool or llm, `metric` latency_ms, cost_usd, tokens (model calls), error_rate or calls, `stat` as in /metrics/series, `name` one tool or model. `units` counts the steps. Computed in the store; empty buckets included.",
      query: SeriesQuerySchema,
      responses: { 200: { description: 'the series', schema: StepSeriesSchema } },
    },
    async (c, { query: q }) => {
      const w = seriesWindow(q.bucket, now(), q.from, q.to);
      if (!w.ok) return { status: 400, body: { error: w.error } };
      const { from, to, bucketMs } = w.value;
      const rows = await store.stepMetrics({ ...toScoreFilters(q), project: c.get('project'), kind: q.kind, metric: q.metric, ...(q.name !== undefined ? { name: q.name } : {}), fromMs: from, toMs: to, bucketMs });
      const byT = new Map(rows.map((r) => [r.t, r]));
      const points: MetricPoint[] = [];
      for (let t = Math.floor(from / bucketMs) * bucketMs; t < to; t += bucketMs) {
        const r = byT.get(t);
        points.push(r ? { t, value: statOf(r, q.stat), n: r.n, units: r.units } : { t, value: q.stat === 'count' || q.stat === 'sum' ? 0 : null, n: 0, units: 0 });
      }
      return { status: 200, body: { kind: q.kind, metric: q.metric, stat: q.stat, bucket: q.bucket, from, to, points } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/metrics/steps/summary',
      tag: 'monitoring',
      role: 'read',
      summary:
        'Per tool (kind=tool) or model (kind=llm) over [from, to) (default: the last 24 h): calls, and the metric\'s n, sum, mean, min, max, p50/p95/p99 across the calls. At most `limit` names (1–1000), the most called first; model calls without a model under "".',
      query: SummaryQuerySchema,
      responses: { 200: { description: 'the summary', schema: StepSummarySchema } },
    },
    async (c, { query: q }) => {
      const to = q.to ?? now();
      const from = q.from ?? to - DAY_MS;
      if (from >= to) return { status: 400, body: { error: 'invalid request: from must be before to' } };
      const rows = await store.stepMetrics({ ...toScoreFilters(q), project: c.get('project'), kind: q.kind, metric: q.metric, groupByName: true, fromMs: from, toMs: to, limit: q.limit });
      const groups = rows.map((r) => ({ name: r.group, calls: r.units, n: r.n, sum: r.sum, mean: r.mean, min: r.min, max: r.max, p50: r.p50, p95: r.p95, p99: r.p99 }));
      return { status: 200, body: { kind: q.kind, metric: q.metric, from, to, groups } };
    },
  );
}
