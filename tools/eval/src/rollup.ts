import type { CompiledExpression } from './expression/index.ts';
import { ExpressionError, truthy } from './expression/index.ts';
import { EvalConfigError } from './eval-error.ts';
import type { RollupCounts, RowStatus } from './result-types.ts';
import type { Place } from './suite-types.ts';

/** Counts of a reference's tries; a skipped reference counts in the `num_skip_*` fields only. */
export function rollupCounts(passes: readonly boolean[], skip: boolean): RollupCounts {
  const p = passes.filter(Boolean).length;
  const f = passes.length - p;
  return skip
    ? { num_passes: 0, num_fails: 0, num_skip_passes: p, num_skip_fails: f, n_tries: passes.length }
    : { num_passes: p, num_fails: f, num_skip_passes: 0, num_skip_fails: 0, n_tries: passes.length };
}

/**
 * The default policy fails a reference when any try fails and reports a skipped reference as
 * `skip` whatever its tries did. A `metrics_rollup` expression decides pass/fail from the counts;
 * a skipped reference stays `skip` unless the expression reads `num_skip_*` and comes out false.
 */
export function rollupStatus(counts: RollupCounts, skip: boolean, rollup: CompiledExpression | null, place: Place): RowStatus {
  if (!rollup) {
    if (skip) return 'skip';
    return counts.num_fails === 0 ? 'pass' : 'fail';
  }
  let result: unknown;
  try {
    result = rollup.evaluate({ ...counts });
  } catch (err) {
    if (err instanceof ExpressionError) throw new EvalConfigError(`metrics_rollup "${rollup.source}" failed: ${err.message}`, place.file, place.line);
    throw err;
  }
  const ok = truthy(result);
  // A skipped reference fails the suite only under a policy that asks about skipped tries.
  if (skip) return !ok && /\bnum_skip_(?:passes|fails)\b/.test(rollup.source) ? 'fail' : 'skip';
  return ok ? 'pass' : 'fail';
}
