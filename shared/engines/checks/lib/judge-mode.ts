import type { ScoreMethod } from '../../../contracts/schemas/index.ts';
import type { CheckContext, CheckInput, CheckOutcome } from '../contract.ts';
import type { BuiltinCheckDefinition } from '../definition.ts';
import { buildJudgePrompt } from '../judge-prompt.ts';
import { passFail } from '../outcome.ts';
import { askJudge } from './ask-judge.ts';

/** The documented judge rubric of a check whose definition describes an LLM judge. */
export interface JudgeRubricOption {
  /** A pass/fail rubric with template variables; the judge answers [[True]] or [[False]]. */
  template: string;
  /** Which answer passes the check (model_refusal's rubric asks "is it a refusal?": False passes). */
  passesOn: boolean;
}

export type JudgeMode = NonNullable<BuiltinCheckDefinition['mode']>;
export const JUDGE_MODES: readonly JudgeMode[] = ['judge', 'hybrid', 'deterministic'];

/**
 * A judge-described check without a `mode` runs `hybrid`: the code settles what it settles with
 * certainty, the judge decides the rest, and without a judge the code tier decides alone.
 */
export const DEFAULT_JUDGE_MODE: JudgeMode = 'hybrid';

/** The code tier's verdict on a case it settles with certainty: `hybrid` asks no judge about it. */
export function settled(outcome: CheckOutcome): CheckOutcome {
  return { ...outcome, settled: true };
}

/**
 * Which tier decided, read from the stored method (the scores table keeps no other column for it):
 * `deterministic` and `code` are code, `model` and `hybrid` are the judge (hybrid's method is
 * `deterministic` when its code tier settled the case).
 */
export function decidedBy(method: ScoreMethod): 'code' | 'judge' {
  return method === 'deterministic' || method === 'code' ? 'code' : 'judge';
}

const unsettled = (outcome: CheckOutcome): CheckOutcome => {
  const { settled: _settled, ...rest } = outcome;
  return rest;
};

/** The judge decides with the rubric: `mode: judge`, or a case the code does not settle in `hybrid`. */
async function judgeDecides(rubric: JudgeRubricOption, input: CheckInput, ctx: CheckContext, method: 'model' | 'hybrid', codeSaid?: string): Promise<CheckOutcome> {
  const verdict = await askJudge(ctx, buildJudgePrompt(rubric.template, input), 'pass_fail', [0, 1], method);
  if (!verdict.ok) return verdict.outcome;
  const passed = (verdict.value === 1) === rubric.passesOn;
  const judged = `judge: ${verdict.explanation || (passed ? 'passes' : 'fails')}`;
  return { ...passFail(passed, method, codeSaid ? `code: ${codeSaid}; ${judged}` : judged), ...verdict.usage };
}

/**
 * Runs a builtin under its mode. Without a rubric the code decides (a check decided in code only).
 * `judge`: the documented rubric decides (method `model`; not_run without a judge). `deterministic`:
 * the code tier alone. `hybrid` (the default): a case the code settles stands (method
 * `deterministic`), the judge decides the others (method `hybrid`, the code's reading in the
 * explanation), and without a judge the code decides them too, its explanation saying so.
 */
export async function runInMode(
  mode: JudgeMode | undefined,
  rubric: JudgeRubricOption | undefined,
  input: CheckInput,
  ctx: CheckContext,
  code: () => Promise<CheckOutcome> | CheckOutcome,
): Promise<CheckOutcome> {
  if (!rubric) return unsettled(await code());
  const effective = mode ?? DEFAULT_JUDGE_MODE;
  if (effective === 'judge') return judgeDecides(rubric, input, ctx, 'model');
  const raw = await code();
  const out = unsettled(raw);
  // A check that cannot run on this input (no output, no simulation dialog) cannot be judged either.
  if (effective === 'deterministic' || out.status !== 'ok' || raw.settled) return out;
  if (!ctx.judge) return { ...out, explanation: `${out.explanation} (decided in code alone; no judge: ${ctx.judgeUnavailableReason ?? 'none configured'})` };
  return judgeDecides(rubric, input, ctx, 'hybrid', out.explanation);
}
