import type { ScoreMethod } from '../../contracts/schemas/index.ts';
import type { CheckContext, CheckInput, CheckOutcome, RunnableCheck } from './contract.ts';
import { describeError } from './outcome.ts';

function defaultMethod(check: RunnableCheck): ScoreMethod {
  return check.kind === 'model' ? 'model' : check.kind === 'code' ? 'code' : 'deterministic';
}

/** Runs one check on one input. Never throws: a throw or a malformed outcome becomes `status: 'error'`. */
export async function runCheck(check: RunnableCheck, input: CheckInput, ctx: CheckContext): Promise<CheckOutcome> {
  try {
    const outcome = await check.run(input, ctx);
    if (outcome.status === 'ok' && !Number.isFinite(outcome.value)) {
      return { status: 'error', method: outcome.method, error: `check produced a non-finite value (${String(outcome.value)})` };
    }
    return outcome;
  } catch (err) {
    return { status: 'error', method: defaultMethod(check), error: `check threw: ${describeError(err)}` };
  }
}
