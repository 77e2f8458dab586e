import type { Hono } from 'hono';
import { z } from 'zod';
import { MAX_DOC_BYTES, type Store } from '../../../shared/adapters/store/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import {
  DatasetNameSchema,
  DatasetSchema,
  MAX_DATASET_UNITS,
  createReviewRepository,
  datasetItem,
  getDataset,
  listDatasets,
  putDataset,
  type DatasetItem,
} from '../../../shared/engines/review/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type Answer, type ApiEnv } from './route.ts';
import { refuseNames, type CheckNames } from './check-names.ts';

const text = z.string().min(1).max(500);
const DatasetInputSchema = z
  .object({
    name: DatasetNameSchema,
    unit_ids: z.array(text).min(1).max(MAX_DATASET_UNITS).optional(),
    queue_id: text.optional().describe("the units reviewers of this queue marked wrong (disagreed with the check)"),
    query: z
      .object({ check: text, passed: z.boolean().optional(), agent: text.optional(), agent_version: text.optional(), environment: text.optional(), limit: z.int().min(1).max(MAX_DATASET_UNITS).default(50) })
      .strict()
      .optional()
      .describe("the newest scored units of a check matching these fields"),
  })
  .strict()
  .refine((b) => [b.unit_ids, b.queue_id, b.query].filter((x) => x !== undefined).length === 1, { message: 'give exactly one of unit_ids, queue_id, query', path: ['unit_ids'] });
const DatasetSummarySchema = z.object({ name: z.string(), version: z.number().int(), units: z.number().int(), created_at_ms: z.number(), source: z.string() });

/**
 * Stores the units `ids` (at most MAX_DATASET_UNITS, with their reviews) as a new version of the
 * dataset `name`: 201 with its summary, 400 when none is stored (`emptyBecause` says why) or the
 * snapshot is over the document bound. Also a problem's dataset (problem-actions.ts).
 */
export async function snapshotDataset(deps: { store: Store; now: () => number }, project: string, req: { name: string; ids: readonly string[]; source: string; emptyBecause: string }): Promise<Answer> {
  const ids = [...new Set(req.ids)].slice(0, MAX_DATASET_UNITS);
  const reviews = await createReviewRepository(deps.store).listReviews({ project });
  const items: DatasetItem[] = [];
  for (const id of ids) {
    const shown = await deps.store.getUnitRevision(id, project);
    if (shown) items.push(datasetItem(shown.unit, shown.revision, reviews.filter((r) => r.unit_id === id)));
  }
  if (items.length === 0) return { status: 400, body: { error: `the dataset would be empty: ${req.emptyBecause}` } };
  // One version is one stored document: refuse what the store could not keep, before writing.
  const bytes = Buffer.byteLength(JSON.stringify(items));
  if (bytes > MAX_DOC_BYTES - 64 * 1024) return { status: 400, body: { error: `the snapshot of ${items.length} units is ${bytes} bytes; a dataset version holds at most ${MAX_DOC_BYTES - 64 * 1024}: choose fewer units` } };
  const d = await putDataset(deps.store, { name: req.name, project, created_at_ms: deps.now(), source: req.source, items });
  return { status: 201, body: { name: d.name, version: d.version, units: d.items.length, created_at_ms: d.created_at_ms, source: d.source } };
}

/** Datasets: `POST /api/v1/datasets` (a new immutable version), `GET /datasets`, `GET /datasets/{name}?version=`. */
export function datasetRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: Store; log: Logger; now: () => number; checkNames: CheckNames }): void {
  const repo = createReviewRepository(deps.store);
  const tag = 'datasets';

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/datasets',
      tag,
      role: 'admin',
      summary: 'Snapshots units (by id, by query, or those a review queue marked wrong) as a new version of a dataset.',
      body: DatasetInputSchema,
      responses: { 201: { description: 'the stored version', schema: DatasetSummarySchema }, 404: { description: 'no such queue in this project', schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const project = c.get('project');
      let ids: string[];
      let source: string;
      // Why the snapshot would hold nothing, said for the source the request chose.
      let emptyBecause: string;
      if (body.unit_ids) {
        ids = body.unit_ids;
        source = `${ids.length} units by id`;
        emptyBecause = `none of the ${ids.length} unit ids is a unit of project ${project}`;
      } else if (body.queue_id) {
        if (!(await repo.getQueue(project, body.queue_id))) return { status: 404, body: { error: `no review queue with id "${body.queue_id}"` } };
        ids = (await repo.listReviews({ project, queueId: body.queue_id, agrees: false })).map((r) => r.unit_id);
        source = `queue ${body.queue_id}: marked wrong`;
        emptyBecause = `no reviewer of queue ${body.queue_id} has marked a unit wrong (disagreed with the check) yet`;
      } else {
        const q = body.query!;
        const unknown = await deps.checkNames.problems(project, [{ at: 'body.query.check', name: q.check }], { scored: true });
        if (unknown.length > 0) return refuseNames(unknown);
        const scores = await deps.store.queryScores({
          project, check: q.check, limit: q.limit,
          ...(q.passed !== undefined ? { passed: q.passed } : {}), ...(q.agent !== undefined ? { agent: q.agent } : {}),
          ...(q.agent_version !== undefined ? { agentVersion: q.agent_version } : {}), ...(q.environment !== undefined ? { environment: q.environment } : {}),
        });
        ids = scores.map((s) => s.unit_id);
        source = `query ${JSON.stringify(q)}`;
        emptyBecause = `no scored unit matches the query ${JSON.stringify(q)}`;
      }
      return snapshotDataset(deps, project, { name: body.name, ids, source, emptyBecause });
    },
  );

  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/datasets', tag, role: 'read', summary: "The project's datasets, every version.", responses: { 200: { description: 'the datasets', schema: z.object({ datasets: z.array(DatasetSummarySchema) }) } } },
    async (c) => ({ status: 200, body: { datasets: await listDatasets(deps.store, c.get('project')) } }),
  );

  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/datasets/{name}',
      tag,
      role: 'read',
      summary: 'One version of a dataset (the latest without `version`).',
      pathParams: z.object({ name: DatasetNameSchema }),
      query: z.object({ version: z.coerce.number().int().positive().optional() }).strict(),
      responses: { 200: { description: 'the dataset', schema: DatasetSchema }, 404: { description: 'no such dataset in this project', schema: ErrorSchema } },
    },
    async (c, { params, query }) => {
      const d = await getDataset(deps.store, c.get('project'), query.version !== undefined ? `${params.name}@${query.version}` : params.name);
      return d ? { status: 200, body: d } : { status: 404, body: { error: `no dataset "${params.name}"` } };
    },
  );
}
