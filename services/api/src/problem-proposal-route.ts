import type { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../../../shared/adapters/store/index.ts';
import { CheckDefinitionError, generateCheckSource } from '../../../shared/engines/checks/index.ts';
import { describeError } from '../../../shared/engines/checks/outcome.ts';
import { mainCheck } from '../../../shared/engines/problems/index.ts';
import { createReviewRepository, tryCheck } from '../../../shared/engines/review/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { projectRegistry, type CheckTryDeps } from './check-try-route.ts';
import { CheckBodySchema, toDefinition } from './check-routes.ts';
import { problemDetail } from './problem-views.ts';
import { proposalDescription, proposalLabels, proposedCheckName } from './problem-proposal.ts';
import { CheckAgreementSchema } from './review-schemas.ts';
import { addRoute, type ApiEnv } from './route.ts';

// `POST /api/v1/problems/{id}/proposed-check`: generate_check writes a check from the problem's
// signature and templates, and `checks try`'s engine runs it over the problem's labelled units
// before anyone saves it. Nothing is stored: saving is `POST /api/v1/checks` with `definition`.

/** What a try needs (the judge also writes the check). */
export type ProblemProposalDeps = CheckTryDeps;

/** Units of the same agent looked at for the contrast (those that failed nothing should pass). */
const CONTRAST_LOOKED_AT = 60;

const ProposalSchema = z.object({
  problem: z.string(),
  definition: z.record(z.string(), z.unknown()).describe('the check as POST /api/v1/checks takes it: post it to save'),
  labels: z.object({ reviewed: z.number().int(), in_problem: z.number().int(), contrast: z.number().int() }).describe('where the try labels came from'),
  try: z.object({
    units: z.number().int(),
    new_agrees: z.object({ successes: z.number().int(), total: z.number().int() }),
    candidate: CheckAgreementSchema,
    differ: z.array(z.object({ unit_id: z.string(), human: z.union([z.boolean(), z.number()]).nullable(), new_passed: z.boolean().nullable(), new_explanation: z.string() })),
    not_scored: z.array(z.object({ unit_id: z.string(), error: z.string() })),
  }),
});

export function problemProposalRoute(app: Hono<ApiEnv>, routes: RouteSpec[], deps: ProblemProposalDeps): void {
  const log = deps.log.child({ component: 'api.problems.proposal' });
  const reviews = createReviewRepository(deps.store);
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/problems/{id}/proposed-check',
      tag: 'problems',
      role: 'admin',
      summary:
        "Proposes a check for the problem: generate_check writes it from the problem's signature and templates, then it is tried on the problem's units (should fail; a person's review wins) and recent units of its agent that failed nothing (should pass). Not saved.",
      pathParams: z.object({ id: z.string().min(1).max(64) }),
      body: z.object({ language: z.enum(['python', 'typescript']).default('python') }).strict(),
      responses: {
        200: { description: 'the proposed check and its try', schema: ProposalSchema },
        404: { description: 'no such problem', schema: ErrorSchema },
        503: { description: 'no judge model configured, or what it wrote does not run', schema: ErrorSchema },
      },
    },
    async (c, { params, body }) => {
      const project = c.get('project');
      const p = (await problemDetail(deps.store, project, params.id, deps.now()))?.problem ?? null;
      if (!p) return { status: 404, body: { error: `no problem ${params.id} in this project` } };
      if (!deps.judge) return { status: 503, body: { error: 'a proposed check is written by the judge model: set OPENAI_BASE_URL (or OPENAI_API_KEY) and TRACECHECK_JUDGE_MODEL' } };
      const name = proposedCheckName(p.id);
      const description = proposalDescription(p);
      let code: string;
      try {
        code = await generateCheckSource({ description, requiresScenarioInput: false, requiresScenarioResult: false, outputDataType: 'bool', language: body.language }, deps.judge);
      } catch (err) {
        return { status: 503, body: { error: `the model failed: ${describeError(err)}` } };
      }
      const definition = { name, description, generated_code: code, language: body.language, output_data_type: 'bool', requires_scenario_input: false, requires_scenario_result: false };
      let check;
      try {
        check = (await projectRegistry(deps, project)).createOrUpdateCheck(toDefinition(CheckBodySchema.parse(definition)));
      } catch (err) {
        if (err instanceof CheckDefinitionError) return { status: 503, body: { error: `the model wrote a check that does not load: ${err.problems.join('; ')}` } };
        throw err;
      }
      const main = mainCheck(p);
      const reviewed = main === null ? [] : (await reviews.listReviews({ project, check: main })).filter((r) => p.sample.includes(r.unit_id));
      const labels = proposalLabels({ project, check: name, sample: p.sample, reviewed, contrast: await contrastUnits(deps.store, project, p.agent, p.sample), nowMs: deps.now() });
      const result = await tryCheck(deps.store, labels.reviews, {
        project,
        check,
        nowMs: deps.now(),
        ctx: { judge: deps.judge, judgeUnavailableReason: 'no judge configured', nowMs: deps.now, project, ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}) },
      });
      log.info({ problem: p.id, project, units: result.units, agree: result.new_agrees.successes }, 'check proposed for a problem');
      return {
        status: 200,
        body: {
          problem: p.id,
          definition,
          labels: labels.counts,
          try: {
            units: result.units,
            new_agrees: result.new_agrees,
            candidate: result.candidate,
            differ: result.differ.map((d) => ({ unit_id: d.unit_id, human: d.human, new_passed: d.new_passed, new_explanation: d.new_explanation })),
            not_scored: result.not_scored,
          },
        },
      };
    },
  );
}

/** Recent units of the agent outside the sample that no check failed: as many as the sample, at most. */
async function contrastUnits(store: Store, project: string, agent: string | null, sample: readonly string[]): Promise<string[]> {
  const listed = await store.listUnits({ project, ...(agent !== null ? { agent } : {}), limit: CONTRAST_LOOKED_AT });
  const candidates = listed.filter((u) => !sample.includes(u.unit_id) && u.agent_name === agent).map((u) => u.unit_id);
  if (candidates.length === 0) return [];
  // One read for all candidates (CONTRAST_LOOKED_AT is under the store's ids per query; a unit has far fewer than 10,000 scores / 60).
  const scores = await store.queryScores({ project, unitIds: candidates, limit: 10_000 });
  const verdicts = new Map<string, boolean>();
  for (const s of scores) verdicts.set(s.unit_id, (verdicts.get(s.unit_id) ?? true) && s.passed !== false);
  return candidates.filter((id) => verdicts.get(id) === true).slice(0, sample.length);
}
