import type { CheckContext, CheckInput, CheckOutcome } from '../contract.ts';
import { buildJudgePrompt } from '../judge-prompt.ts';
import { notRun, passFail } from '../outcome.ts';
import { askJudge } from './ask-judge.ts';

/** The documented judge rubric of a check that can also be decided in code. */
export interface JudgeRubricOption {
  /** A pass/fail rubric with template variables; the judge answers [[True]] or [[False]]. */
  template: string;
  /** Which answer passes the check (model_refusal's rubric asks "is it a refusal?": False passes). */
  passesOn: boolean;
  /**
   * In `hybrid`: the check asks the judge itself on doubt (model_refusal, automated_resolution); else
   * the code's failure stands (it names its evidence) and the judge confirms the code's pass.
   */
  ownDoubt?: boolean;
}

/** The judge decides with the rubric: `mode: judge`, or a pass the code cannot prove in `hybrid`. */
export async function judgeDecides(rubric: JudgeRubricOption, input: CheckInput, ctx: CheckContext, method: 'model' | 'hybrid', codeSaid?: string): Promise<CheckOutcome> {
  if (!ctx.judge) return notRun(method, ctx.judgeUnavailableReason ?? 'no judge configured');
  const verdict = await askJudge(ctx, buildJudgePrompt(rubric.template, input), 'pass_fail', [0, 1], method);
  if (!verdict.ok) return verdict.outcome;
  const passed = (verdict.value === 1) === rubric.passesOn;
  const judged = `judge: ${verdict.explanation || (passed ? 'passes' : 'fails')}`;
  return { ...passFail(passed, method, codeSaid ? `code: ${codeSaid}; ${judged}` : judged), ...verdict.usage };
}

/** Runs a builtin under its mode: the code alone, the judge alone, or the code with the judge confirming its passes. */
export async function runInMode(
  mode: string | undefined,
  rubric: JudgeRubricOption | undefined,
  input: CheckInput,
  ctx: CheckContext,
  code: () => Promise<CheckOutcome> | CheckOutcome,
): Promise<CheckOutcome> {
  if (rubric && mode === 'judge') return judgeDecides(rubric, input, ctx, 'model');
  const out = await code();
  if (!rubric || mode !== 'hybrid' || rubric.ownDoubt || out.status !== 'ok' || out.passed !== true) return out;
  // Without a judge the code's pass stands, saying so: hybrid degrades to deterministic, never to not_run.
  if (!ctx.judge) return { ...out, explanation: `${out.explanation ?? ''} (no judge to confirm: ${ctx.judgeUnavailableReason ?? 'none configured'})` };
  return judgeDecides(rubric, input, ctx, 'hybrid', out.explanation);
}
