import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { MAX_SCENARIO_ROWS, ModelDocSchema, ModelsSchema, ScenarioSetDocSchema, SeedRowSchema, TEST_RUN_DOC_KINDS, type ModelDoc, type ScenarioSetDoc } from '../../../shared/engines/test-runs/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

const ProjectIdSchema = z.string().max(200).optional().describe("the SDK's project id; the caller's key decides the project");
const NameSchema = z.string().trim().min(1).max(200);

const ScenarioBodySchema = z.object({ name: NameSchema, seed_data: z.array(SeedRowSchema).min(1).max(MAX_SCENARIO_ROWS), project_id: ProjectIdSchema }).strict();
const ScenarioSetSchema = z.object({ scenario_id: z.string(), project_id: z.string(), name: z.string(), type: z.literal('SEED'), time_created: z.string(), rows: z.number().int() });
const DataPointSchema = z.object({ id: z.string(), input: z.unknown(), result: z.unknown() });

const ModelBodySchema = z.object({ name: NameSchema, tags: z.array(z.string().max(200)).max(50).default([]), project_id: ProjectIdSchema, models: ModelsSchema, update: z.boolean().default(false), sensitive_fields: z.array(z.string()).nullish() }).strict();
const ModelSchema = z.object({ id: z.string(), project_id: z.string(), name: z.string(), tags: z.array(z.string()), models: z.record(z.string(), z.unknown()), time_created: z.string(), warning: z.string().optional() });

function scenarioOut(project: string, doc: ScenarioSetDoc): z.infer<typeof ScenarioSetSchema> {
  return { scenario_id: doc.scenario_id, project_id: project, name: doc.name, type: 'SEED', time_created: new Date(doc.created_at_ms).toISOString(), rows: doc.rows.length };
}

function modelOut(project: string, doc: ModelDoc, warning?: string): z.infer<typeof ModelSchema> {
  return { id: doc.id, project_id: project, name: doc.name, tags: doc.tags, models: doc.models, time_created: new Date(doc.created_at_ms).toISOString(), ...(warning ? { warning } : {}) };
}

export async function readScenarioSet(store: QueryStore, project: string, id: string): Promise<ScenarioSetDoc | null> {
  const doc = await store.getDoc(TEST_RUN_DOC_KINDS.scenarioSet, project, id);
  const parsed = doc ? ScenarioSetDocSchema.safeParse(doc.body) : null;
  return parsed?.success ? parsed.data : null;
}

export async function readModel(store: QueryStore, project: string, id: string): Promise<ModelDoc | null> {
  const doc = await store.getDoc(TEST_RUN_DOC_KINDS.model, project, id);
  const parsed = doc ? ModelDocSchema.safeParse(doc.body) : null;
  return parsed?.success ? parsed.data : null;
}

/**
 * What an evaluation run needs, shaped as the SDK's calls: `POST /api/v1/scenario-sets`
 * (create_scenario_set from seed rows), its data points, and `POST /api/v1/models`
 * (register_model: a chat model with prompt templates the server calls, or a custom model the
 * client invokes). Stored as docs of the caller's project.
 */
export function scenarioModelRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; now: () => number }): void {
  const tag = 'test runs';
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/projects', tag, role: 'read', summary: "get_projects: the caller's project (its key's; `default` while the API is open), as the SDK lists projects.", responses: { 200: { description: 'the project', schema: z.object({ projects: z.array(z.object({ id: z.string(), name: z.string() })) }) } } },
    (c) => Promise.resolve({ status: 200, body: { projects: [{ id: c.get('project'), name: c.get('project') }] } }),
  );
  addRoute(
    app,
    routes,
    { method: 'post', path: '/api/v1/scenario-sets', tag, role: 'admin', summary: `create_scenario_set: a named set of seed rows {input, result} (at most ${MAX_SCENARIO_ROWS}).`, body: ScenarioBodySchema, responses: { 201: { description: 'the scenario set', schema: ScenarioSetSchema } } },
    async (c, { body }) => {
      const project = c.get('project');
      const id = randomUUID();
      const doc: ScenarioSetDoc = { scenario_id: id, name: body.name, created_at_ms: deps.now(), rows: body.seed_data.map((r, i) => ({ id: `${id}:${i}`, input: r.input ?? null, result: r.result ?? null })) };
      await deps.store.putDoc({ kind: TEST_RUN_DOC_KINDS.scenarioSet, project, id, body: doc, updated_at_ms: doc.created_at_ms });
      return { status: 201, body: scenarioOut(project, doc) };
    },
  );
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/scenario-sets/{id}/data-points', tag, role: 'read', summary: "get_scenario_data_points: the set's rows with their ids.", pathParams: z.object({ id: z.string().max(200) }), responses: { 200: { description: 'the rows', schema: z.object({ data_points: z.array(DataPointSchema) }) }, 404: { description: 'no such scenario set', schema: ErrorSchema } } },
    async (c, { params }) => {
      const doc = await readScenarioSet(deps.store, c.get('project'), params.id);
      if (!doc) return { status: 404, body: { error: `no scenario set with id "${params.id}" in this project` } };
      return { status: 200, body: { data_points: doc.rows } };
    },
  );
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/models',
      tag,
      role: 'admin',
      summary: 'register_model: a model under test by name: {generation|openai: {model_id, temperature, system_prompt_template, user_prompt_template}} the server calls, or {custom: {name}} the client invokes. The same name again keeps the stored model unless update is true.',
      body: ModelBodySchema,
      responses: { 201: { description: 'registered', schema: ModelSchema }, 200: { description: 'the stored model of that name', schema: ModelSchema } },
    },
    async (c, { body }) => {
      const project = c.get('project');
      const existing = await readModel(deps.store, project, body.name);
      const same = existing !== null && JSON.stringify(existing.models) === JSON.stringify(body.models) && JSON.stringify(existing.tags) === JSON.stringify(body.tags);
      if (existing && (same || !body.update)) {
        return { status: 200, body: modelOut(project, existing, same ? undefined : `model "${body.name}" exists with another definition; register it with update=True to replace it`) };
      }
      const doc: ModelDoc = { id: body.name, name: body.name, tags: body.tags, models: body.models, created_at_ms: Math.max(deps.now(), (existing?.created_at_ms ?? 0) + 1) };
      await deps.store.putDoc({ kind: TEST_RUN_DOC_KINDS.model, project, id: doc.id, body: doc, updated_at_ms: doc.created_at_ms });
      return { status: 201, body: modelOut(project, doc) };
    },
  );
}
