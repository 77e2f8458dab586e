import type { CheckContext, CheckInput, CheckOutcome } from '../contract.ts';
import type { BuiltinCheckDefinition } from '../definition.ts';
import { buildJudgePrompt } from '../judge-prompt.ts';
import { parseJudgeAnswer } from '../judge-answer.ts';
import { describeError, errorOutcome, passFail } from '../outcome.ts';

/**
 * The code's answer was not clear. In `hybrid` mode with a judge, the judge decides (method
 * `hybrid`); otherwise the code's leaning stands and says it was unsure (method `deterministic`).
 */
export async function decideOnDoubt(
  def: BuiltinCheckDefinition,
  input: CheckInput,
  ctx: CheckContext,
  rubric: string,
  leaning: boolean,
  why: string,
): Promise<CheckOutcome> {
  if (def.mode !== 'hybrid' || !ctx.judge) {
    const note = def.mode === 'hybrid' ? ` (not clear; no judge: ${ctx.judgeUnavailableReason ?? 'none configured'})` : ' (not clear; decided in code)';
    return passFail(leaning, 'deterministic', `${why}${note}`);
  }
  const prompt = buildJudgePrompt(rubric, input);
  try {
    const res = await ctx.judge.complete({ system: prompt.system, user: prompt.user, temperature: 0, maxTokens: 300 });
    const usage = { judgeModel: res.model, inputTokens: res.inputTokens, outputTokens: res.outputTokens };
    const answer = parseJudgeAnswer(res.text, 'pass_fail', [0, 1]);
    if (!answer.ok) return { ...errorOutcome('hybrid', answer.error), ...usage };
    return { ...passFail(answer.value === 1, 'hybrid', `${why}; judge: ${answer.explanation || 'no explanation'}`), ...usage };
  } catch (err) {
    return errorOutcome('hybrid', `judge call failed: ${describeError(err)}`);
  }
}
