import { z } from 'zod';
import { EXPLORE_SORTS, EXPLORE_VERDICTS, MAX_SEARCH_WORDS, type ExploreQuery, type ExploreRow } from '../../../shared/adapters/store/index.ts';
import { cursorParam, encodeCursor } from './cursor.ts';
import { MAX_PAGE_LIMIT } from './listing-routes.ts';
import { TimeRangeParams, UnitFilterParams } from './query-params.ts';
import { MAX_TIME_MS } from './time-param.ts';

// The explorer's query string, shared by GET /api/v1/units, /api/v1/sessions and the
// /units and /sessions pages: one schema decides every filter's name, bounds and message.

const Amount = (what: string) =>
  z.coerce
    .number({ message: `${what}: a number` })
    .finite()
    .min(0, `${what}: at least 0`)
    .max(1e12, `${what}: at most 1e12`);

const ExploreCursorSchema = z
  .object({ s: z.enum(EXPLORE_SORTS), o: z.enum(['desc', 'asc']), k: z.number().min(-MAX_TIME_MS).max(MAX_TIME_MS), u: z.string().max(500) })
  .strict();

export const ExploreParams = {
  q: z
    .string()
    .max(500)
    .refine((s) => s.split(/\s+/).filter((w) => w !== '').length <= MAX_SEARCH_WORDS, `at most ${MAX_SEARCH_WORDS} words`)
    .optional()
    .describe(`free text: every word (at most ${MAX_SEARCH_WORDS}) must occur, case-insensitively, in the dialog, tool arguments or results`),
  ...UnitFilterParams,
  kind: z.enum(['trace', 'session']).optional().describe('alias of unit_kind'),
  conversation_id: z.string().max(500).optional(),
  model: z.string().max(200).optional().describe("the unit's model, or one any of its LLM calls used"),
  tool: z.string().max(200).optional().describe('a tool the run executed'),
  status: z.enum(['ok', 'error']).optional().describe('error: some span of the run ended in error; ok: none did'),
  check: z.string().min(1).max(200).optional().describe('units scored by this check'),
  verdict: z.enum(EXPLORE_VERDICTS).optional().describe("with check: the score's verdict (pass, fail, error, not_run)"),
  cost_min: Amount('cost_min').optional().describe('inclusive lower bound on the run cost, USD'),
  cost_max: Amount('cost_max').optional().describe('inclusive upper bound on the run cost, USD'),
  duration_min: Amount('duration_min').optional().describe('inclusive lower bound on the duration, ms'),
  duration_max: Amount('duration_max').optional().describe('inclusive upper bound on the duration, ms'),
  ...TimeRangeParams,
  sort: z.enum(EXPLORE_SORTS).default('time').describe('time (end time, default), cost, duration or tokens'),
  order: z.enum(['desc', 'asc']).default('desc').describe('desc (default) or asc; ties by unit id'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT, `at most ${MAX_PAGE_LIMIT} rows a page; follow next_cursor for more`)
    .default(100)
    .describe(`rows per page, 1–${MAX_PAGE_LIMIT} (default 100)`),
  cursor: cursorParam(ExploreCursorSchema).optional().describe('next_cursor of the previous page (same sort and order)'),
};

type Refiner = { verdict?: unknown; check?: unknown; cost_min?: number; cost_max?: number; duration_min?: number; duration_max?: number; cursor?: { s: string; o: string }; sort: string; order: string };

export function crossChecks(v: Refiner, ctx: z.RefinementCtx): void {
  if (v.verdict !== undefined && v.check === undefined) ctx.addIssue({ code: 'custom', path: ['verdict'], message: 'needs check (the check whose verdict it is)' });
  if (v.cost_min !== undefined && v.cost_max !== undefined && v.cost_min > v.cost_max) ctx.addIssue({ code: 'custom', path: ['cost_min'], message: 'is above cost_max' });
  if (v.duration_min !== undefined && v.duration_max !== undefined && v.duration_min > v.duration_max) ctx.addIssue({ code: 'custom', path: ['duration_min'], message: 'is above duration_max' });
  if (v.cursor !== undefined && (v.cursor.s !== v.sort || v.cursor.o !== v.order)) ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'belongs to another sort or order; start again without it' });
}

export const ExploreQuerySchema = z.object(ExploreParams).strict().superRefine(crossChecks);
/** /api/v1/sessions: the same, always sessions. */
const { kind: _kind, unit_kind: _unitKind, ...SessionParams } = ExploreParams;
export const SessionsQuerySchema = z.object(SessionParams).strict().superRefine(crossChecks);

export type ExploreParamValues = z.output<typeof ExploreQuerySchema>;

/** The API's names → the store's query, in the caller's project. */
export function toExploreQuery(v: Partial<ExploreParamValues> & { sort: ExploreParamValues['sort']; order: ExploreParamValues['order']; limit: number }, project: string, kind?: 'session'): ExploreQuery {
  const out: ExploreQuery = { project, sort: v.sort, order: v.order, limit: v.limit };
  const k = kind ?? v.unit_kind ?? v.kind;
  if (k !== undefined) out.kind = k;
  if (v.q !== undefined) out.text = v.q;
  if (v.agent !== undefined) out.agent = v.agent;
  if (v.agent_version !== undefined) out.agentVersion = v.agent_version;
  if (v.environment !== undefined) out.environment = v.environment;
  if (v.service !== undefined) out.service = v.service;
  if (v.conversation_id !== undefined) out.conversationId = v.conversation_id;
  if (v.model !== undefined) out.model = v.model;
  if (v.tool !== undefined) out.tool = v.tool;
  if (v.status !== undefined) out.status = v.status;
  if (v.check !== undefined) out.check = v.check;
  if (v.verdict !== undefined) out.verdict = v.verdict;
  if (v.cost_min !== undefined) out.costMin = v.cost_min;
  if (v.cost_max !== undefined) out.costMax = v.cost_max;
  if (v.duration_min !== undefined) out.durationMinMs = v.duration_min;
  if (v.duration_max !== undefined) out.durationMaxMs = v.duration_max;
  if (v.from !== undefined) out.fromMs = v.from;
  if (v.to !== undefined) out.toMs = v.to;
  if (v.cursor !== undefined) out.after = { key: v.cursor.k, unit_id: v.cursor.u };
  return out;
}

/** The cursor of the page after `rows` (a full page), else null. */
export function nextExploreCursor(rows: readonly ExploreRow[], q: ExploreQuery & { limit: number }): string | null {
  const last = rows.at(-1);
  return last && rows.length === q.limit ? encodeCursor({ s: q.sort ?? 'time', o: q.order ?? 'desc', k: last.sort_key, u: last.unit_id }) : null;
}
