import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import {
  MAX_QUEUE_UNIT_IDS,
  ReviewInputSchema,
  ReviewQueueInputSchema,
  ReviewQueueSchema,
  ReviewSchema,
  ReviewerSchema,
  checkAgreement,
  createReviewRepository,
  newQueueId,
  nextInQueue,
  queueItems,
  recordReview,
  type ReviewFilter,
} from '../../../shared/engines/review/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { CheckAgreementSchema } from './review-schemas.ts';
import { BooleanParam } from './query-params.ts';
import { addRoute, type Answer, type ApiEnv } from './route.ts';
import { refuseNames, type CheckNames } from './check-names.ts';

const QueueIdParams = z.object({ id: z.string().min(1).max(200) });
const QueueWithCountSchema = ReviewQueueSchema.extend({ units: z.number().int().describe('units in the queue now') });
const NextSchema = z.object({
  unit_id: z.string().nullable().describe('the next unit this reviewer has not reviewed; null when none is left'),
  position: z.number().int().nullable(),
  total: z.number().int(),
  reviewed: z.number().int(),
  check: z.string(),
});
const text = z.string().min(1).max(500);
const ReviewsQuerySchema = z
  .object({
    unit_id: text.optional(),
    check: text.optional(),
    check_version: text.optional(),
    reviewer: ReviewerSchema.optional(),
    queue_id: text.optional(),
    agrees: BooleanParam.optional(),
    limit: z.coerce.number().int().min(1).max(10_000).default(100).describe('newest first; 1–10000, default 100'),
  })
  .strict();
const ReviewsPageSchema = z.object({ reviews: z.array(ReviewSchema), count: z.number().int() });
const AddUnitsSchema = z.object({ unit_ids: z.array(text).min(1).max(MAX_QUEUE_UNIT_IDS) }).strict();

/** Who reviews, when the body names no one: the caller's key id, or `anonymous` while no key exists. */
function defaultReviewer(c: Context<ApiEnv>): string {
  return c.get('keyId') ?? 'anonymous';
}

type QueueDeps = { store: Store; log: Logger; now: () => number; checkNames: CheckNames };

/** Stores a new review queue: 201 with it, 400 for a check never scored, 409 for a name taken (also a problem's queue, problem-actions.ts). */
export async function createQueue(deps: QueueDeps, project: string, body: z.output<typeof ReviewQueueInputSchema>): Promise<Answer> {
  const repo = createReviewRepository(deps.store);
  // A queue on a misspelt check would stay empty for ever.
  const unknown = await deps.checkNames.problems(project, [{ at: 'body.filter.check', name: body.filter.check }], { scored: true });
  if (unknown.length > 0) return refuseNames(unknown);
  const same = (await repo.listQueues(project)).find((q) => q.name === body.name);
  if (same) return { status: 409, body: { error: `a review queue named "${body.name}" exists (id ${same.id}); choose another name` } };
  const t = deps.now();
  const queue = ReviewQueueSchema.parse({ ...body, unit_ids: [...new Set(body.unit_ids)], id: newQueueId(), project, created_at_ms: t, updated_at_ms: t });
  await repo.putQueue(queue);
  deps.log.info({ component: 'api.reviews', queueId: queue.id, project: queue.project }, 'review queue created');
  return { status: 201, body: queue };
}

/**
 * Review queues, reviews and agreement: `POST/GET /api/v1/review-queues`, `GET
 * /review-queues/{id}`, `POST /review-queues/{id}/units`, `GET /review-queues/{id}/next`, `POST/GET
 * /reviews`, `GET /checks/{name}/agreement`. Read keys read; admin keys write; all project-scoped.
 */
export function reviewRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: QueueDeps): void {
  const log = deps.log.child({ component: 'api.reviews' });
  const repo = createReviewRepository(deps.store, (doc, problems) => log.warn({ kind: doc.kind, id: doc.id, problems }, 'stored review document does not parse; skipped'));
  const tag = 'reviews';
  const noQueue = (id: string) => ({ status: 404, body: { error: `no review queue with id "${id}"` } });

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/review-queues',
      tag,
      role: 'admin',
      summary: 'Creates a review queue: a filter over scored units, a sample rate and units added by id.',
      body: ReviewQueueInputSchema,
      responses: { 201: { description: 'the stored queue', schema: ReviewQueueSchema }, 409: { description: 'a queue of that name exists in this project', schema: ErrorSchema } },
    },
    async (c, { body }) => createQueue(deps, c.get('project'), body),
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/review-queues', tag, role: 'read', summary: "The project's review queues.", responses: { 200: { description: 'the queues', schema: z.object({ queues: z.array(ReviewQueueSchema) }) } } },
    async (c) => ({ status: 200, body: { queues: await repo.listQueues(c.get('project')) } }),
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/review-queues/{id}',
      tag,
      role: 'read',
      summary: 'One review queue and how many units it holds now.',
      pathParams: QueueIdParams,
      responses: { 200: { description: 'the queue', schema: QueueWithCountSchema }, 404: { description: 'no such queue in this project', schema: ErrorSchema } },
    },
    async (c, { params }) => {
      const queue = await repo.getQueue(c.get('project'), params.id);
      if (!queue) return noQueue(params.id);
      return { status: 200, body: { ...queue, units: (await queueItems(deps.store, queue)).length } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/review-queues/{id}/units',
      tag,
      role: 'admin',
      summary: "Adds units by id (e.g. an alert's `units`), whatever the queue's filter says.",
      pathParams: QueueIdParams,
      body: AddUnitsSchema,
      responses: { 200: { description: 'the queue', schema: ReviewQueueSchema }, 404: { description: 'no such queue in this project', schema: ErrorSchema } },
    },
    async (c, { params, body }) => {
      const queue = await repo.getQueue(c.get('project'), params.id);
      if (!queue) return noQueue(params.id);
      const ids = [...new Set([...queue.unit_ids, ...body.unit_ids])];
      if (ids.length > MAX_QUEUE_UNIT_IDS) return { status: 400, body: { error: `a queue holds at most ${MAX_QUEUE_UNIT_IDS} units added by id` } };
      const updated = { ...queue, unit_ids: ids, updated_at_ms: Math.max(deps.now(), queue.updated_at_ms + 1) };
      await repo.putQueue(updated);
      return { status: 200, body: updated };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/review-queues/{id}/next',
      tag,
      role: 'read',
      summary: 'The next unit of the queue the reviewer has not reviewed (after `after`, or the one before `before`).',
      pathParams: QueueIdParams,
      query: z.object({ reviewer: ReviewerSchema.optional(), after: text.optional(), before: text.optional() }).strict(),
      responses: { 200: { description: 'where the reviewer is', schema: NextSchema }, 404: { description: 'no such queue in this project', schema: ErrorSchema } },
    },
    async (c, { params, query }) => {
      const project = c.get('project');
      const queue = await repo.getQueue(project, params.id);
      if (!queue) return noQueue(params.id);
      const reviewer = query.reviewer ?? defaultReviewer(c);
      const [items, reviews] = await Promise.all([queueItems(deps.store, queue), repo.listReviews({ project, check: queue.filter.check, reviewer })]);
      const position = nextInQueue(items, new Set(reviews.map((r) => r.unit_id)), { ...(query.after ? { after: query.after } : {}), ...(query.before ? { before: query.before } : {}) });
      return { status: 200, body: { ...position, check: queue.filter.check } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/reviews',
      tag,
      role: 'admin',
      summary: "Records a person's verdict on a check's score of a unit; the same reviewer's later review replaces theirs.",
      body: ReviewInputSchema,
      responses: { 201: { description: 'the stored review', schema: ReviewSchema }, 404: { description: 'the unit has no score of that check in this project', schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const review = await recordReview(deps.store, repo, body, { project: c.get('project'), reviewer: defaultReviewer(c), atMs: deps.now() });
      if (!review) return { status: 404, body: { error: `unit "${body.unit_id}" has no score of check "${body.check}"` } };
      return { status: 201, body: review };
    },
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/reviews', tag, role: 'read', summary: 'Reviews, newest first.', query: ReviewsQuerySchema, responses: { 200: { description: 'the reviews', schema: ReviewsPageSchema } } },
    async (c, { query }) => {
      const filter: ReviewFilter = { project: c.get('project') };
      if (query.unit_id !== undefined) filter.unitId = query.unit_id;
      if (query.check !== undefined) filter.check = query.check;
      if (query.check_version !== undefined) filter.checkVersion = query.check_version;
      if (query.reviewer !== undefined) filter.reviewer = query.reviewer;
      if (query.queue_id !== undefined) filter.queueId = query.queue_id;
      if (query.agrees !== undefined) filter.agrees = query.agrees;
      const reviews = (await repo.listReviews(filter)).reverse().slice(0, query.limit);
      return { status: 200, body: { reviews, count: reviews.length } };
    },
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/checks/{name}/agreement',
      tag,
      role: 'read',
      summary: "A check's agreement with people's reviews (one version, or all), and of people with each other.",
      pathParams: z.object({ name: text }),
      query: z.object({ version: text.optional() }).strict(),
      responses: { 200: { description: 'the agreement', schema: CheckAgreementSchema } },
    },
    async (c, { params, query }) => {
      const reviews = await repo.listReviews({ project: c.get('project'), check: params.name });
      return { status: 200, body: checkAgreement(params.name, reviews, query.version) };
    },
  );
}
