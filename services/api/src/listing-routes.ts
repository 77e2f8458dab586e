import type { Hono } from 'hono';
import { z } from 'zod';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { Store, UnitRevision } from '../../../shared/adapters/store/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { ErrorSchema } from './api-spec.ts';
import { ScoresPageSchema, UnitRevisionsSchema, UnitWithScoresSchema } from './api-schemas.ts';
import { ScoreCursorSchema, cursorParam, nextScoreCursor } from './cursor.ts';
import { BooleanParam, TimeRangeParams, UnitFilterParams, toScoreFilters } from './query-params.ts';
import { addRoute, type ApiEnv } from './route.ts';
import { diagnoseUnit } from '../../../shared/engines/diagnose/index.ts';

/**
 * Rows per page. A page is serialized on the event loop: 1,000 scores take ~30 ms (10,000 took
 * ~550 ms, blocking every other request meanwhile), so larger pages are refused; follow next_cursor.
 */
export const MAX_PAGE_LIMIT = 1_000;
const PageLimitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT, `at most ${MAX_PAGE_LIMIT} rows a page; follow next_cursor for more`)
  .default(100)
  .describe(`rows per page, 1–${MAX_PAGE_LIMIT} (default 100)`);

const iso = (ms: number): string => new Date(ms).toISOString();

/** The public shape of a score: the stored row with ISO timestamps beside the epoch ones. */
function presentScore(s: Score) {
  return { ...s, project: s.project ?? 'default', unit_revision: s.unit_revision ?? 1, created_at: iso(s.created_at_ms), unit_end_time: iso(s.unit_end_time_ms) };
}

const ScoresQuerySchema = z
  .object({
    check: z.string().min(1).max(200).optional(),
    unit_id: z.string().min(1).max(200).optional(),
    ...UnitFilterParams,
    status: z.enum(['ok', 'error', 'not_run']).optional(),
    passed: BooleanParam.optional().describe('true or false'),
    ...TimeRangeParams,
    limit: PageLimitParam,
    cursor: cursorParam(ScoreCursorSchema).optional().describe('next_cursor of the previous page'),
  })
  .strict();

// GET /api/v1/units (the listing) is the explorer's: explorer-routes.ts.

const UnitIdParams = z.object({ unitId: z.string().min(1).max(500) });
const UnitQuerySchema = z.object({ revision: z.coerce.number().int().min(1).max(1_000_000).optional().describe('a revision of the unit (default: the latest)') }).strict();

// A trace id may be given in upper case; units are stored under the lower-case hex.
const normalUnitId = (id: string): string => (/^[0-9A-F]{32}$/.test(id) ? id.toLowerCase() : id);

/** What differs from the revision before, by hash. */
function changedFrom(previous: UnitRevision | undefined, r: UnitRevision): ('model_output' | 'messages' | 'span_count' | 'other')[] | null {
  if (!previous) return null;
  const changed: ('model_output' | 'messages' | 'span_count' | 'other')[] = [];
  if (previous.model_output_hash !== r.model_output_hash) changed.push('model_output');
  if (previous.messages_hash !== r.messages_hash) changed.push('messages');
  if (previous.span_count !== r.span_count) changed.push('span_count');
  if (changed.length === 0 && previous.content_hash !== r.content_hash) changed.push('other');
  return changed;
}

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
      path: '/api/v1/units/{unitId}',
      tag: 'units',
      role: 'read',
      summary:
        'One unit with its whole dialog (`messages`) and every score of it: its latest revision, or the one `revision` asks for (see /revisions). A trace unit id is its trace id in hex.',
      pathParams: UnitIdParams,
      query: UnitQuerySchema,
      responses: { 200: { description: 'the unit and its scores', schema: UnitWithScoresSchema }, 404: { description: 'no such unit (or revision) in this project', schema: ErrorSchema } },
    },
    async (c, { params, query }) => {
      const unitId = normalUnitId(params.unitId);
      const project = c.get('project');
      const latest = await store.getUnitRevision(unitId, project);
      if (!latest) return { status: 404, body: { error: `no unit with id "${unitId}"` } };
      const shown = query.revision === undefined || query.revision === latest.revision ? latest : await store.getUnitRevision(unitId, project, query.revision);
      if (!shown) return { status: 404, body: { error: `unit "${unitId}" has no revision ${String(query.revision)} (its latest is ${latest.revision})` } };
      const scores = await store.queryScores({ unitId, project, unitRevision: shown.revision, limit: 10_000 });
      const unit = shown.unit;
      return { status: 200, body: { unit: { ...unit, messages: unit.message_history, diagnostics: diagnoseUnit(unit) }, scores: scores.map(presentScore), revision: shown.revision, latest_revision: latest.revision } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/units/{unitId}/revisions',
      tag: 'units',
      role: 'read',
      summary:
        'Every revision of a unit, oldest first: a unit that changed after it was scored (late spans re-opened its trace, a later trace its session) keeps each earlier revision with its scores. Each says when it was built and stored, its span count, hashes of its content, output and dialog, what changed from the one before, and its scores.',
      pathParams: UnitIdParams,
      responses: { 200: { description: 'the revisions', schema: UnitRevisionsSchema }, 404: { description: 'no such unit in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const unitId = normalUnitId(params.unitId);
      const project = c.get('project');
      const revisions = await store.listUnitRevisions(unitId, project);
      if (revisions.length === 0) return { status: 404, body: { error: `no unit with id "${unitId}"` } };
      const last = revisions[revisions.length - 1].revision;
      const out = await Promise.all(
        revisions.map(async (r, i) => {
          const scores = await store.queryScores({ unitId, project, unitRevision: r.revision, limit: 10_000 });
          return {
            revision: r.revision,
            latest: r.revision === last,
            assembled_at_ms: r.assembled_at_ms,
            assembled_at: iso(r.assembled_at_ms),
            stored_at_ms: r.stored_at_ms,
            stored_at: iso(r.stored_at_ms),
            span_count: r.span_count,
            content_hash: r.content_hash,
            model_output_hash: r.model_output_hash,
            messages_hash: r.messages_hash,
            changed: changedFrom(revisions[i - 1], r),
            scores: scores.map(presentScore),
          };
        }),
      );
      return { status: 200, body: { unit_id: unitId, revisions: out } };
    },
  );
}
