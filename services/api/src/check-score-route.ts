import type { Hono } from 'hono';
import { z } from 'zod';
import { ChatMessageSchema, ToolDefinitionSchema } from '../../../shared/contracts/schemas/index.ts';
import { checkInMode, checkModeProblems, checkSlug, decidedBy, recordToCheckInput, runCheck, unknownCheckMessage, type CheckContext, type CheckInput, type CheckRegistry, type CodeRunner, type JudgeClient } from '../../../shared/engines/checks/index.ts';
import { addStoredChecks, CheckModesSchema } from '../../../shared/engines/monitors/index.ts';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';
import { refuseNames } from './check-names.ts';

const MAX_ROWS = 100;
const MAX_CHECKS = 20;
const CONCURRENCY = 4;

/** A row as an evaluation has it: the output and, where the checks need them, the scenario's input and result, or the whole dialog. */
const RowSchema = z
  .object({
    id: z.union([z.string().max(200), z.number()]).optional(),
    model_output: z.string().max(100_000).nullable().optional(),
    scenario_input: z.string().max(100_000).nullable().optional(),
    scenario_result: z.string().max(100_000).nullable().optional(),
    messages: z.array(ChatMessageSchema).max(500).optional(),
    tools: z.array(ToolDefinitionSchema).max(200).optional(),
  })
  .strict();

const BodySchema = z
  .object({
    checks: z.array(z.string().min(1)).min(1).max(MAX_CHECKS),
    rows: z.array(RowSchema).min(1).max(MAX_ROWS),
    /** Per check: `judge`, `hybrid` (the default of the seven judge-described checks) or `deterministic`. */
    modes: CheckModesSchema.optional(),
    project_id: z.string().max(200).optional(),
  })
  .strict();

const ResultSchema = z.object({
  id: z.string(),
  check: z.string(),
  check_version: z.string(),
  status: z.enum(['ok', 'error', 'not_run']),
  value: z.number().nullable(),
  passed: z.boolean().nullable(),
  method: z.string(),
  /** Who decided: `code` (method deterministic or code) or `judge` (model, or hybrid's judge). */
  decided_by: z.enum(['code', 'judge']),
  explanation: z.string(),
  error: z.string().nullable(),
});

type Row = z.infer<typeof RowSchema>;

function rowInput(row: Row, index: number): CheckInput {
  const id = row.id === undefined ? String(index) : String(row.id);
  const messages = row.messages ?? [
    ...(row.scenario_input ? [{ role: 'user' as const, content: row.scenario_input }] : []),
    ...(row.model_output ? [{ role: 'assistant' as const, content: row.model_output }] : []),
  ];
  const input = recordToCheckInput({ id, messages, tools: row.tools ?? [], scenario_input: row.scenario_input ?? null, scenario_result: row.scenario_result ?? null });
  return row.model_output === undefined ? input : { ...input, model_output: row.model_output };
}

export interface CheckScoreDeps {
  store: QueryStore;
  log: Logger;
  createRegistry: () => CheckRegistry;
  judge: JudgeClient | null;
  codeRunner?: CodeRunner;
}

/**
 * `POST /api/v1/checks/score`: runs checks (the catalog's and the project's own) on rows the caller
 * gives, as an evaluation run does, and answers each row's results; nothing is stored. The rows are
 * one evaluation: uniqueness compares each with the others.
 */
export function checkScoreRoute(app: Hono<ApiEnv>, routes: RouteSpec[], deps: CheckScoreDeps): void {
  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/checks/score',
      tag: 'checks',
      role: 'admin',
      summary: `Scores rows ({model_output, scenario_input?, scenario_result?, messages?, tools?}, at most ${MAX_ROWS}) with checks by name (at most ${MAX_CHECKS}), each judge-described check in its mode (modes: {check: judge|hybrid|deterministic}): one result per row and check, not stored.`,
      body: BodySchema,
      responses: { 200: { description: 'the results, row by row', schema: z.object({ results: z.array(ResultSchema) }) }, 400: { description: 'an unknown check', schema: ErrorSchema } },
    },
    async (c, { body }) => {
      const registry = await addStoredChecks(deps.createRegistry(), deps.store, (doc, problems) => deps.log.warn({ id: doc.id, problems }, 'stored user check does not parse; skipped'), c.get('project'));
      const checks = body.checks.map((name) => ({ name, check: registry.get(name) ?? registry.get(checkSlug(name)) }));
      const known = registry.list().map((x) => x.name);
      const unknown = checks.flatMap((x, i) => (x.check ? [] : [`body.checks.${i}: ${unknownCheckMessage(x.name, known)}`]));
      if (unknown.length > 0) return refuseNames(unknown);
      const modes = body.modes ?? {};
      const modeProblems = checkModeProblems(registry, body.checks, modes, 'body.modes');
      if (modeProblems.length > 0) return refuseNames(modeProblems);
      const runnable = checks.map(({ name, check }) => (modes[name] ? checkInMode(registry, name, modes[name]) : check!));
      const inputs = body.rows.map(rowInput);
      const ctx: CheckContext = {
        judge: deps.judge,
        judgeUnavailableReason: 'no judge model configured (OPENAI_BASE_URL or OPENAI_API_KEY, and TRACECHECK_JUDGE_MODEL)',
        nowMs: Date.now,
        project: c.get('project'),
        batch: inputs,
        ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}),
      };
      const results: z.infer<typeof ResultSchema>[][] = [];
      await forEachLimited(inputs, CONCURRENCY, async (input, i) => {
        const rows: z.infer<typeof ResultSchema>[] = [];
        for (const check of runnable) {
          const o = await runCheck(check, input, ctx);
          rows.push({
            id: input.id,
            check: check.name,
            check_version: check.version,
            status: o.status,
            value: o.status === 'ok' ? o.value : null,
            passed: o.status === 'ok' ? o.passed : null,
            method: o.method,
            decided_by: decidedBy(o.method),
            explanation: o.explanation ?? '',
            error: o.status === 'ok' ? null : o.error,
          });
        }
        results[i] = rows;
      });
      return { status: 200, body: { results: results.flat() } };
    },
  );
}
