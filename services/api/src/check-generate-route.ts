import type { Hono } from 'hono';
import { z } from 'zod';
import { generateCheckSource, outputTypeOfDataType, type JudgeClient } from '../../../shared/engines/checks/index.ts';
import { describeError } from '../../../shared/engines/checks/outcome.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

/** generate_check's EvaluatorSpecRequest. */
const EvaluatorSpecSchema = z
  .object({
    name: z.string().optional(),
    description: z.string().min(1).max(10_000),
    requires_scenario_input: z.boolean().default(false),
    requires_scenario_result: z.boolean().default(false),
    output_data_type: z.string().refine((t) => outputTypeOfDataType(t) !== null, { message: 'output_data_type must be bool, int or float' }),
    language: z.enum(['python', 'typescript']).default('python'),
    // The SDK sends its project's id; the caller's key decides the project.
    project_id: z.string().max(200).optional(),
  })
  .strict();

const GeneratedSchema = z.object({
  name: z.string().optional(),
  description: z.string(),
  requires_scenario_input: z.boolean(),
  requires_scenario_result: z.boolean(),
  output_data_type: z.string(),
  language: z.enum(['python', 'typescript']),
  generated_code: z.string(),
});

/**
 * `POST /api/v1/checks/generate` is generate_check: the configured judge model writes the check
 * (Python as a CodeBasedCheck, as the SDK returns it; TypeScript on request) and the source comes
 * back as generated_code, not saved: the user reads it and uploads it.
 */
export function checkGenerateRoute(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { judge: JudgeClient | null }): void {
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/checks/generate',
      tag: 'checks',
      role: 'admin',
      summary: 'generate_check: an EvaluatorSpecRequest {description, requires_scenario_input, requires_scenario_result, output_data_type} answered with generated_code (Python; language "typescript" on request), written by the judge model.',
      body: EvaluatorSpecSchema,
      responses: { 200: { description: 'the generated check', schema: GeneratedSchema }, 503: { description: 'no judge model configured, or it failed', schema: ErrorSchema } },
    },
    async (_c, { body }) => {
      if (!deps.judge) return { status: 503, body: { error: 'generate_check needs a model: set OPENAI_BASE_URL (or OPENAI_API_KEY) and TRACECHECK_JUDGE_MODEL' } };
      const dataType = body.output_data_type.trim().toLowerCase();
      const outputDataType = dataType === 'int' || dataType === 'integer' ? 'int' : dataType === 'bool' || dataType === 'boolean' ? 'bool' : 'float';
      let code: string;
      try {
        code = await generateCheckSource(
          { description: body.description, requiresScenarioInput: body.requires_scenario_input, requiresScenarioResult: body.requires_scenario_result, outputDataType, language: body.language },
          deps.judge,
        );
      } catch (err) {
        return { status: 503, body: { error: `the model failed: ${describeError(err)}` } };
      }
      return {
        status: 200,
        body: {
          ...(body.name ? { name: body.name } : {}),
          description: body.description,
          requires_scenario_input: body.requires_scenario_input,
          requires_scenario_result: body.requires_scenario_result,
          output_data_type: outputDataType,
          language: body.language,
          generated_code: code,
        },
      };
    },
  );
}
