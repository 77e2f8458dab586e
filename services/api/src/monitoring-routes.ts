import type { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { CompareSchema, SeriesSchema, SummarySchema } from './api-schemas.ts';
import { queryCompare, querySeries, querySummary, type Answer as QueryAnswer } from './monitoring-queries.ts';
import { BooleanParam, TimeRangeParams, UNIT_FILTER_NAMES, UnitFilterParams, toScoreFilters, type UnitFilterValues } from './query-params.ts';
import { addRoute, type Answer, type ApiEnv } from './route.ts';
import { refuseNames, type CheckNames } from './check-names.ts';

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
    include_external: BooleanParam.optional().describe("also compare other tools' evaluations (scores with method external, from gen_ai.evaluation.result events); by default only tracecheck's own checks"),
    ...TimeRangeParams,
    ...UnitFilterParams,
    ...sideParams('a'),
    ...sideParams('b'),
  })
  .strict();

/** The filters of one compare side: `a.<filter>` (or `b.`), else the unprefixed filter. */
export function compareSide(q: Record<string, unknown>, prefix: 'a' | 'b'): UnitFilterValues {
  const out: Record<string, unknown> = {};
  for (const k of UNIT_FILTER_NAMES) {
    const v = q[`${prefix}.${k}`] ?? q[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const toAnswer = <T>(r: QueryAnswer<T>): Answer => (r.ok ? { status: 200, body: r.value } : { status: 400, body: { error: r.error } });

export function monitoringRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store, now: () => number, checkNames: CheckNames): void {
  const unknownCheck = (project: string, check: string | undefined) => checkNames.problems(project, check === undefined ? [] : [{ at: 'query.check', name: check }], { scored: true });
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
      const unknown = await unknownCheck(c.get('project'), q.check);
      if (unknown.length > 0) return refuseNames(unknown);
      return toAnswer(await querySeries(store, now(), { project: c.get('project'), check: q.check, bucket: q.bucket, from: q.from, to: q.to, filters: toScoreFilters(q) }));
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
    async (c, { query: q }) => toAnswer(await querySummary(store, now(), { project: c.get('project'), from: q.from, to: q.to, filters: toScoreFilters(q) })),
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
        'B against A per check (e.g. `a.agent_version=v1&b.agent_version=v2`): both rates with 95% intervals, the test (two-proportion z; Fisher exact when an expected cell is under 5; Mann–Whitney U for score checks), p-value, the difference B − A with its 95% interval, the verdict at `alpha`, and links to B\'s failing units. Sorted most worse first. `metrics`: B against A on duration_ms, cost_usd and tokens (medians, Mann–Whitney U with its exact or tie-corrected normal p-value, the Hodges–Lehmann shift B − A with its distribution-free 95% interval; values rounded to 1 ms, $0.000001, 1 token).',
      query: CompareQuerySchema,
      responses: { 200: { description: 'the comparison', schema: CompareSchema } },
    },
    async (c, { query }) => {
      const q = query as z.output<typeof CompareQuerySchema> & Record<string, unknown>;
      const unknown = await unknownCheck(c.get('project'), q.check);
      if (unknown.length > 0) return refuseNames(unknown);
      return toAnswer(await queryCompare(store, { project: c.get('project'), a: compareSide(q, 'a'), b: compareSide(q, 'b'), alpha: q.alpha, check: q.check, from: q.from, to: q.to, includeExternal: q.include_external === true }));
    },
  );
}
