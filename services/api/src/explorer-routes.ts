import type { Hono } from 'hono';
import { z } from 'zod';
import type { ExploreRow, Store } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { UnitSummaryOutSchema } from './api-schemas.ts';
import { ExploreQuerySchema, SessionsQuerySchema, nextExploreCursor, toExploreQuery } from './explorer-query.ts';
import { addRoute, type ApiEnv } from './route.ts';

// GET /api/v1/units and /api/v1/sessions: the explorer's listing through the API.

const iso = (ms: number): string => new Date(ms).toISOString();

const ScoreBadgeSchema = z.object({ check: z.string(), check_version: z.string(), status: z.string(), passed: z.boolean().nullable(), value: z.number().nullable() });
const ExploreRowSchema = UnitSummaryOutSchema.extend({
  duration_ms: z.number().nullable(),
  cost_usd: z.number().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  tool_calls: z.number().nullable(),
  errored: z.boolean().nullable().describe('some span ended in error (null: a unit stored before step figures)'),
  sort_key: z.number().describe('the value the page is sorted by'),
  scores: z.array(ScoreBadgeSchema).describe("the unit's latest scores"),
});
const ExplorePageSchema = z.object({ units: z.array(ExploreRowSchema), count: z.number().int(), next_cursor: z.string().nullable() });

const presentExploreRow = (u: ExploreRow) => ({ ...u, start_time: iso(u.start_time_ms), end_time: iso(u.end_time_ms) });

const FILTERS_TEXT =
  'Filters: q (free text over the dialog, tool arguments and results), from/to (end time), agent, agent_version, environment, service, model, tool, status, check and verdict, cost_min/cost_max, duration_min/duration_max; sort (time, cost, duration, tokens) and order.';

export function explorerRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/units',
      tag: 'units',
      role: 'read',
      summary: `Units without their dialog, newest first by end time (or the sort asked), filtered, searched and paged, each with its latest scores. ${FILTERS_TEXT}`,
      query: ExploreQuerySchema,
      responses: { 200: { description: 'a page of units', schema: ExplorePageSchema } },
    },
    async (c, { query: v }) => {
      const q = toExploreQuery(v, c.get('project'));
      const rows = await store.exploreUnits(q);
      return { status: 200, body: { units: rows.map(presentExploreRow), count: rows.length, next_cursor: nextExploreCursor(rows, { ...q, limit: v.limit }) } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/sessions',
      tag: 'units',
      role: 'read',
      summary: `Session units (a conversation's traces together): /api/v1/units with kind=session. ${FILTERS_TEXT}`,
      query: SessionsQuerySchema,
      responses: { 200: { description: 'a page of sessions', schema: ExplorePageSchema } },
    },
    async (c, { query: v }) => {
      const q = toExploreQuery(v, c.get('project'), 'session');
      const rows = await store.exploreUnits(q);
      return { status: 200, body: { units: rows.map(presentExploreRow), count: rows.length, next_cursor: nextExploreCursor(rows, { ...q, limit: v.limit }) } };
    },
  );
}
