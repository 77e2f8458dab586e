import type { Hono } from 'hono';
import { z } from 'zod';
import { CheckDefinitionError, checkSlug, type CheckRegistry, type CodeRunner, type JudgeClient } from '../../../shared/engines/checks/index.ts';
import { addStoredChecks } from '../../../shared/engines/monitors/index.ts';
import { createReviewRepository, putCheckTry, tryCheck } from '../../../shared/engines/review/index.ts';
import type { Store } from '../../../shared/adapters/store/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { CheckBodySchema, toDefinition } from './check-routes.ts';
import { CheckAgreementSchema } from './review-schemas.ts';
import { addRoute, type ApiEnv } from './route.ts';

const CountSchema = z.object({ successes: z.number().int(), total: z.number().int() });
const CheckTrySchema = z.object({
  check: z.string(),
  project: z.string(),
  new_version: z.string(),
  current: CheckAgreementSchema.describe('the reviewed verdicts (what the check said when people reviewed it)'),
  candidate: CheckAgreementSchema.describe("the new version's verdicts on the same reviews"),
  units: z.number().int(),
  new_agrees: CountSchema,
  differ: z.array(
    z.object({
      unit_id: z.string(),
      human: z.union([z.boolean(), z.number()]).nullable(),
      current_passed: z.boolean().nullable(),
      current_value: z.number().nullable(),
      new_passed: z.boolean().nullable(),
      new_value: z.number().nullable(),
      new_explanation: z.string(),
    }),
  ),
  not_scored: z.array(z.object({ unit_id: z.string(), error: z.string() })),
  created_at_ms: z.number(),
});

export interface CheckTryDeps {
  store: Store;
  log: Logger;
  now: () => number;
  createRegistry: () => CheckRegistry;
  /** The one judge client; null: a model check's try answers not_run for every unit. */
  judge: JudgeClient | null;
  /** Runs code checks in the sandbox; absent: a code check's try answers not_run. */
  codeRunner?: CodeRunner;
}

/** The catalog, the configured definitions and every stored version of the project's checks. */
export async function projectRegistry(deps: Pick<CheckTryDeps, 'store' | 'log' | 'createRegistry'>, project: string): Promise<CheckRegistry> {
  return addStoredChecks(deps.createRegistry(), deps.store, (doc) => deps.log.warn({ id: doc.id }, 'stored user check does not parse; skipped'), project);
}

/**
 * `POST /api/v1/checks/{name}/try`: the body is a new definition of the check (as `POST
 * /api/v1/checks` takes it), run over the project's reviewed units without being saved; the answer
 * puts its agreement with people beside the current one and lists the units where they differ. The
 * try is recorded, for a monitor's `min_agreement`.
 */
export function checkTryRoute(app: Hono<ApiEnv>, routes: RouteSpec[], deps: CheckTryDeps): void {
  const log = deps.log.child({ component: 'api.checks.try' });
  const repo = createReviewRepository(deps.store);
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/checks/{name}/try',
      tag: 'checks',
      role: 'admin',
      summary: "Tries a new version of a check (the body: a definition as POST /api/v1/checks takes it, not saved) against the project's reviews: agreement of the current and the new version, and the units where they differ.",
      pathParams: z.object({ name: z.string().min(1).max(200) }),
      query: z.object({ current_version: z.string().min(1).max(200).optional().describe('compare with the reviews of this version only') }).strict(),
      body: CheckBodySchema,
      responses: { 200: { description: 'the try, as recorded', schema: CheckTrySchema }, 400: { description: 'an invalid definition, or one of another check', schema: ErrorSchema } },
    },
    async (c, { params, query, body }) => {
      const project = c.get('project');
      const definition = toDefinition(body);
      // The path may name the check as the SDK shows it ("Example Uploaded Check") or by its id.
      if (definition.name !== checkSlug(params.name)) return { status: 400, body: { error: `invalid request: the definition is of "${definition.name}", the path names "${params.name}"` } };
      let check;
      try {
        check = (await projectRegistry(deps, project)).createOrUpdateCheck(definition);
      } catch (err) {
        if (err instanceof CheckDefinitionError) return { status: 400, body: { error: `invalid request: ${err.problems.join('; ')}`, issues: err.problems } };
        throw err;
      }
      const reviews = await repo.listReviews({ project, check: definition.name });
      const result = await tryCheck(deps.store, reviews, {
        project,
        check,
        nowMs: deps.now(),
        ctx: { judge: deps.judge, judgeUnavailableReason: 'no judge configured (OPENAI_BASE_URL / TRACECHECK_JUDGE_MODEL)', nowMs: deps.now, project, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) },
        ...(query.current_version !== undefined ? { currentVersion: query.current_version } : {}),
      });
      await putCheckTry(deps.store, result);
      log.info({ check: result.check, version: result.new_version, project, units: result.units, differ: result.differ.length }, 'check version tried');
      return { status: 200, body: result };
    },
  );
}
