import type { ScoreMethod } from '../../contracts/schemas/index.ts';
import type { CheckOutcome } from './contract.ts';
import type { CheckDefinition } from './definition.ts';
import { effectiveRange } from './definition.ts';

/** An ok outcome for a value, with `passed` from the output type and threshold. */
export function valueOutcome(def: CheckDefinition, value: number, method: ScoreMethod, explanation: string): CheckOutcome {
  if (def.outputType === 'pass_fail') return { status: 'ok', value: value ? 1 : 0, passed: value !== 0, method, explanation };
  const [lo, hi] = effectiveRange(def);
  if (!Number.isFinite(value) || value < lo || value > hi) {
    return { status: 'error', method, error: `value ${value} is outside the range [${lo}, ${hi}]`, explanation };
  }
  return { status: 'ok', value, passed: def.threshold === undefined ? null : value >= def.threshold, method, explanation };
}

export function passFail(passed: boolean, method: ScoreMethod, explanation: string): CheckOutcome {
  return { status: 'ok', value: passed ? 1 : 0, passed, method, explanation };
}

export function notRun(method: ScoreMethod, reason: string): CheckOutcome {
  return { status: 'not_run', method, error: reason };
}

export function errorOutcome(method: ScoreMethod, error: string, explanation?: string): CheckOutcome {
  return explanation === undefined ? { status: 'error', method, error } : { status: 'error', method, error, explanation };
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
