import type { CheckContext, CheckOutcome } from '../contract.ts';
import type { JudgePrompt } from '../judge-prompt.ts';
import { parseJudgeAnswer } from '../judge-answer.ts';
import { describeError, errorOutcome } from '../outcome.ts';

export type JudgeVerdict =
  | { ok: true; value: number; explanation: string; usage: { judgeModel: string; inputTokens: number; outputTokens: number } }
  | { ok: false; outcome: CheckOutcome };

/** One judge call for a builtin that asks the judge itself; a failure or an unreadable answer is an error outcome. */
export async function askJudge(ctx: CheckContext, prompt: JudgePrompt, outputType: 'pass_fail' | 'score', range: readonly [number, number], method: 'model' | 'hybrid'): Promise<JudgeVerdict> {
  if (!ctx.judge) return { ok: false, outcome: { status: 'not_run', method, error: ctx.judgeUnavailableReason ?? 'no judge configured' } };
  let res;
  try {
    res = await ctx.judge.complete({ system: prompt.system, user: prompt.user, temperature: 0, maxTokens: 400 });
  } catch (err) {
    return { ok: false, outcome: errorOutcome(method, `judge call failed: ${describeError(err)}`) };
  }
  const usage = { judgeModel: res.model, inputTokens: res.inputTokens, outputTokens: res.outputTokens };
  const answer = parseJudgeAnswer(res.text, outputType, range);
  if (!answer.ok) return { ok: false, outcome: { ...errorOutcome(method, answer.error), ...usage } };
  return { ok: true, value: answer.value, explanation: answer.explanation, usage };
}
