import type { CheckContext, CodeRunner, JudgeClient, RunnableCheck } from '../../../shared/checks/contract.ts';
import { runCheck, unitToCheckInput } from '../../../shared/checks/index.ts';
import type { Score, Unit } from '../../../shared/schemas/index.ts';
import { outcomeToScore } from './outcome-to-score.ts';

export interface ScoreUnitDeps {
  checks: readonly RunnableCheck[];
  judge: JudgeClient | null;
  judgeUnavailableReason: string | null;
  /** Runs users' code checks in isolation; without it they are scored `not_run`. */
  codeRunner?: CodeRunner;
  nowMs: () => number;
}

/** Runs every check on the unit, concurrently; never throws (a failing check is an error score). */
export async function scoreUnit(unit: Unit, deps: ScoreUnitDeps): Promise<Score[]> {
  const input = unitToCheckInput(unit);
  const ctx: CheckContext = {
    judge: deps.judge,
    nowMs: deps.nowMs,
    ...(deps.judgeUnavailableReason ? { judgeUnavailableReason: deps.judgeUnavailableReason } : {}),
    ...(deps.codeRunner ? { codeRunner: deps.codeRunner } : {}),
  };
  return Promise.all(
    deps.checks.map(async (check) => {
      const started = performance.now();
      const outcome = await runCheck(check, input, ctx);
      return outcomeToScore(unit, check, outcome, performance.now() - started, deps.nowMs());
    }),
  );
}
