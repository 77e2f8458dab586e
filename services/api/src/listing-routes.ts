import type { Hono } from 'hono';
import { z } from 'zod';
import type { Score } from '../../../shared/schemas/index.ts';
import type { Store, UnitSummary } from '../../../shared/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { ErrorSchema } from './api-spec.ts';
import { ScoresPageSchema, UnitWithScoresSchema, UnitsPageSchema } from './api-schemas.ts';
import { ScoreCursorSchema, UnitCursorSchema, cursorParam, encodeCursor, nextScoreCursor } from './cursor.ts';
import { BooleanParam, TimeRangeParams, UnitFilterParams, toScoreFilters } from './query-params.ts';
import { addRoute, type ApiEnv } from './route.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The public shape of a score: the stored row with ISO timestamps beside the epoch ones. */
export function presentScore(s: Score) {
  return { ...s, project: s.project ?? 'default', created_at: iso(s.created_at_ms), unit_end_time: iso(s.unit_end_time_ms) };
}

const presentUnitSummary = (u: UnitSummary) => ({ ...u, start_time: iso(u.start_time_ms), end_time: iso(u.end_time_ms) });

const ScoresQuerySchema = z
  .object({
    check: z.string().min(1).max(200).optional(),
    unit_id: z.string().min(1).max(200).optional(),
    ...UnitFilterParams,
    status: z.enum(['ok', 'error', 'not_run']).optional(),
    passed: BooleanParam.optional().describe('true or false'),
    ...TimeRangeParams,
    limit: z.coerce.number().int().min(1).max(10_000).default(100),
    cursor: cursorParam(ScoreCursorSchema).optional().describe('next_cursor of the previous page'),
  })
  .strict();

const UnitsQuerySchema = z
  .object({
    ...UnitFilterParams,
    kind: z.enum(['trace', 'session']).optional().describe('alias of unit_kind'),
    conversation_id: z.string().max(500).optional(),
    ...TimeRangeParams,
    limit: z.coerce.number().int().min(1).max(10_000).default(100),
    cursor: cursorParam(UnitCursorSchema).optional().describe('next_cursor of the previous page'),
  })
  .strict();

const UnitIdParams = z.object({ unitId: z.string().min(1).max(500) });

export function listingRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], store: Store): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/scores',
      tag: 'scores',
      role: 'read',
      summary: 'Scores, newest first by created_at, filtered; one per (unit, check, check version). `from`/`to` bound created_at.',
      query: ScoresQuerySchema,
      responses: { 200: { description: 'a page of scores', schema: ScoresPageSchema } },
    },
    async (c, { query: q }) => {
      const scores = await store.queryScores({
        ...toScoreFilters(q),
        project: c.get('project'),
        limit: q.limit,
        ...(q.check !== undefined ? { check: q.check } : {}),
        ...(q.unit_id !== undefined ? { unitId: q.unit_id } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.passed !== undefined ? { passed: q.passed } : {}),
        ...(q.from !== undefined ? { fromMs: q.from } : {}),
        ...(q.to !== undefined ? { toMs: q.to } : {}),
        ...(q.cursor !== undefined ? { after: q.cursor } : {}),
      });
      const next = nextScoreCursor(scores, q.limit);
      return { status: 200, body: { scores: scores.map(presentScore), count: scores.length, next_cursor: next } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/units',
      tag: 'units',
      role: 'read',
      summary: 'Units without their dialog, newest first by end time, filtered and paged. `from`/`to` bound the end time.',
      query: UnitsQuerySchema,
      responses: { 200: { description: 'a page of units', schema: UnitsPageSchema } },
    },
    async (c, { query: q }) => {
      const f = toScoreFilters(q);
      const kind = q.unit_kind ?? q.kind;
      const units = await store.listUnits({
        project: c.get('project'),
        limit: q.limit,
        ...(f.agent !== undefined ? { agent: f.agent } : {}),
        ...(f.agentVersion !== undefined ? { agentVersion: f.agentVersion } : {}),
        ...(f.environment !== undefined ? { environment: f.environment } : {}),
        ...(f.service !== undefined ? { service: f.service } : {}),
        ...(kind !== undefined ? { unitKind: kind } : {}),
        ...(q.conversation_id !== undefined ? { conversationId: q.conversation_id } : {}),
        ...(q.from !== undefined ? { fromMs: q.from } : {}),
        ...(q.to !== undefined ? { toMs: q.to } : {}),
        ...(q.cursor !== undefined ? { after: q.cursor } : {}),
      });
      const last = units.at(-1);
      const next = last && units.length === q.limit ? encodeCursor({ end_time_ms: last.end_time_ms, unit_id: last.unit_id }) : null;
      return { status: 200, body: { units: units.map(presentUnitSummary), count: units.length, next_cursor: next } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/units/{unitId}',
      tag: 'units',
      role: 'read',
      summary: 'One unit with its whole dialog (`messages`) and every score of it. A trace unit id is its trace id in hex.',
      pathParams: UnitIdParams,
      responses: { 200: { description: 'the unit and its scores', schema: UnitWithScoresSchema }, 404: { description: 'no such unit in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const unitId = /^[0-9A-F]{32}$/.test(params.unitId) ? params.unitId.toLowerCase() : params.unitId;
      const project = c.get('project');
      const unit = await store.getUnit(unitId, project);
      if (!unit) return { status: 404, body: { error: `no unit with id "${unitId}"` } };
      const scores = await store.queryScores({ unitId, project, limit: 10_000 });
      return { status: 200, body: { unit: { ...unit, messages: unit.message_history }, scores: scores.map(presentScore) } };
    },
  );
}
