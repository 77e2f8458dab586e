import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { z } from 'zod';
import { MAX_DOC_BYTES, type QueryStore } from '../../../shared/adapters/store/index.ts';
import { checkSlug, unknownCheckMessage, type CheckRegistry, type CodeRunner, type JudgeClient, type RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { addStoredChecks } from '../../../shared/engines/monitors/index.ts';
import { compareTestRuns, executeTestRun, seedText, TEST_RUN_DOC_KINDS, TEST_RUN_TYPES, TestRunDocSchema, testRunMetrics, type OutputSource, type TestRunDoc } from '../../../shared/engines/test-runs/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { refuseNames } from './check-names.ts';
import { addRoute, type ApiEnv } from './route.ts';
import { readModel, readScenarioSet } from './scenario-model-routes.ts';

const MAX_CHECKS = 20;
const MAX_LISTED = 200;

// What a custom model's invocation gives the server, per data point (the SDK's model_results).
const ModelResultSchema = z.object({ actual: z.unknown(), model_input: z.unknown().optional(), model_response: z.unknown().optional(), model_result: z.unknown().optional() }).loose();

const RunBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    mut_id: z.string().min(1).max(200),
    scenario_id: z.string().min(1).max(200),
    project_id: z.string().max(200).optional(),
    type: z.enum(TEST_RUN_TYPES).default('NL_GENERATION'),
    calculate_metrics: z.boolean().default(true),
    checks: z.array(z.string().min(1)).max(MAX_CHECKS).default([]),
    tags: z.array(z.string().max(200)).max(50).default([]),
    model_results: z.record(z.string(), ModelResultSchema).optional(),
  })
  .strict();

const RunSummarySchema = z.object({ id: z.string(), name: z.string(), tags: z.array(z.string()), type: z.string(), mut_id: z.string(), scenario_set_id: z.string(), start_time: z.string(), end_time: z.string(), status: z.string(), test_data_point_count: z.number().int(), app_link: z.string() });

function summaryOf(run: TestRunDoc): z.infer<typeof RunSummarySchema> & { model_metrics: Record<string, unknown> } {
  return {
    id: run.id,
    name: run.name,
    tags: run.tags,
    type: run.type,
    mut_id: run.mut_id,
    scenario_set_id: run.scenario_set_id,
    start_time: new Date(run.start_time_ms).toISOString(),
    end_time: new Date(run.end_time_ms).toISOString(),
    status: run.status,
    test_data_point_count: run.rows.length,
    app_link: `/test-runs/${encodeURIComponent(run.id)}`,
    model_metrics: {
      mean_scores: Object.fromEntries(run.metrics.map((m) => [m.check, m.mean])),
      pass_rates: Object.fromEntries(run.metrics.filter((m) => m.pass_rate !== null).map((m) => [m.check, m.pass_rate])),
      checks: run.metrics,
    },
  };
}

export async function readTestRun(store: QueryStore, project: string, id: string): Promise<TestRunDoc | null> {
  const doc = await store.getDoc(TEST_RUN_DOC_KINDS.testRun, project, id);
  const parsed = doc ? TestRunDocSchema.safeParse(doc.body) : null;
  return parsed?.success ? parsed.data : null;
}

export async function listTestRuns(store: QueryStore, project: string): Promise<TestRunDoc[]> {
  const docs = await store.listDocs({ kind: TEST_RUN_DOC_KINDS.testRun, project, limit: MAX_LISTED });
  return docs.flatMap((d) => {
    const parsed = TestRunDocSchema.safeParse(d.body);
    return parsed.success ? [parsed.data] : [];
  });
}

export interface TestRunDeps {
  store: QueryStore;
  log: Logger;
  now: () => number;
  createRegistry: () => CheckRegistry;
  judge: JudgeClient | null;
  codeRunner?: CodeRunner;
}

/**
 * Evaluation runs as the SDK's `model_under_test.run_test` makes them: `POST /api/v1/test-runs`
 * runs the registered model on every row of a scenario set (or takes the outputs a custom model
 * gave the client), scores each with the checks named, and stores the run with its rows and
 * summary metrics; `GET` lists and reads them, `GET /test-runs/compare` sets two runs side by side.
 */
export function testRunRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: TestRunDeps): void {
  const tag = 'test runs';
  const log = deps.log.child({ component: 'api.test-runs' });
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/test-runs',
      tag,
      role: 'admin',
      summary: `run_test: {name, mut_id, scenario_id, type, calculate_metrics, checks (names or ids, at most ${MAX_CHECKS}), tags, model_results?}; the run is stored with its rows, each check's value and the summary metrics.`,
      body: RunBodySchema,
      responses: { 201: { description: 'the finished run', schema: RunSummarySchema }, 404: { description: 'no such model or scenario set', schema: ErrorSchema }, 413: { description: 'the run exceeds what the store keeps per run', schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const project = c.get('project');
      const [model, scenario] = await Promise.all([readModel(deps.store, project, body.mut_id), readScenarioSet(deps.store, project, body.scenario_id)]);
      if (!model) return { status: 404, body: { error: `no registered model "${body.mut_id}" in this project: register_model first` } };
      if (!scenario) return { status: 404, body: { error: `no scenario set with id "${body.scenario_id}" in this project: create_scenario_set first` } };
      const registry = await addStoredChecks(deps.createRegistry(), deps.store, (doc, problems) => log.warn({ id: doc.id, problems }, 'stored user check does not parse; skipped'), project);
      const found = body.checks.map((name) => registry.get(name) ?? registry.get(checkSlug(name)));
      const known = registry.list().map((x) => x.name);
      const unknown = body.checks.flatMap((name, i) => (found[i] ? [] : [`body.checks.${i}: ${unknownCheckMessage(name, known)}`]));
      if (unknown.length > 0) return refuseNames(unknown);
      const checks = found.filter((x, i, all): x is RunnableCheck => x !== undefined && x !== null && all.findIndex((y) => y?.name === x.name) === i);
      const generation = model.models.generation ?? model.models.openai;
      let source: OutputSource;
      if (generation) source = { kind: 'generation', model: generation, client: deps.judge };
      else {
        if (!body.model_results) return { status: 400, body: { error: `model "${model.name}" is a custom model: its outputs come from the client (run_test in the Python or TypeScript client invokes it)` } };
        source = { kind: 'given', outputs: new Map(Object.entries(body.model_results).map(([id, r]) => [id, seedText(r.actual)])) };
      }
      const start = deps.now();
      const rows = await executeTestRun(scenario, source, checks, {
        judge: deps.judge,
        judgeUnavailableReason: 'no judge model configured (OPENAI_BASE_URL or OPENAI_API_KEY, and TRACECHECK_JUDGE_MODEL)',
        nowMs: deps.now,
        project,
        ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}),
      });
      const end = Math.max(deps.now(), start);
      const run: TestRunDoc = {
        id: randomUUID(),
        name: body.name,
        tags: body.tags,
        type: body.type,
        mut_id: model.id,
        model_name: model.name,
        scenario_set_id: scenario.scenario_id,
        scenario_name: scenario.name,
        start_time_ms: start,
        end_time_ms: end,
        status: 'FINISHED',
        metrics: body.calculate_metrics ? testRunMetrics(rows, checks) : [],
        rows,
      };
      if (JSON.stringify(run).length > MAX_DOC_BYTES) return { status: 413, body: { error: `the run's ${rows.length} rows exceed the ${MAX_DOC_BYTES} bytes the store keeps per run; split the scenario set` } };
      await deps.store.putDoc({ kind: TEST_RUN_DOC_KINDS.testRun, project, id: run.id, body: run, updated_at_ms: end });
      log.info({ project, run: run.id, rows: rows.length, checks: checks.length }, 'test run stored');
      return { status: 201, body: summaryOf(run) };
    },
  );
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/test-runs', tag, role: 'read', summary: `find_test_runs: the project's runs, newest first (at most ${MAX_LISTED}), with their summary metrics.`, responses: { 200: { description: 'the runs', schema: z.object({ test_runs: z.array(RunSummarySchema) }) } } },
    async (c) => ({ status: 200, body: { test_runs: (await listTestRuns(deps.store, c.get('project'))).map(summaryOf) } }),
  );
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/test-runs/compare',
      tag,
      role: 'read',
      summary: 'Two runs check by check: B − A with its interval, Fisher/z for pass rates, Mann-Whitney for scores, and on the same scenario set the pairwise preference per data point.',
      query: z.object({ a: z.string().min(1).max(200), b: z.string().min(1).max(200) }).strict(),
      responses: { 200: { description: 'the comparison', schema: z.object({ a: z.string(), b: z.string(), checks: z.array(z.unknown()) }) }, 404: { description: 'no such run', schema: ErrorSchema } },
    },
    async (c, { query }) => {
      const project = c.get('project');
      const [a, b] = await Promise.all([readTestRun(deps.store, project, query.a), readTestRun(deps.store, project, query.b)]);
      if (!a || !b) return { status: 404, body: { error: `no test run with id "${!a ? query.a : query.b}" in this project` } };
      return { status: 200, body: { a: a.id, b: b.id, checks: compareTestRuns(a, b) } };
    },
  );
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/test-runs/{id}', tag, role: 'read', summary: 'get_test_run: a run with its rows (each check\'s status, value, passed, explanation) and summary metrics.', pathParams: z.object({ id: z.string().max(200) }), responses: { 200: { description: 'the run', schema: RunSummarySchema }, 404: { description: 'no such run', schema: ErrorSchema } } },
    async (c, { params }) => {
      const run = await readTestRun(deps.store, c.get('project'), params.id);
      if (!run) return { status: 404, body: { error: `no test run with id "${params.id}" in this project` } };
      return { status: 200, body: { ...summaryOf(run), scenario_name: run.scenario_name, model_name: run.model_name, rows: run.rows } };
    },
  );
}
