import type { RunnableCheck } from '../checks/index.ts';
import type { CheckMetric, TestRunRow } from './docs.ts';

/** The run's summary metrics per check: how many rows it scored, its mean value and pass rate. */
export function testRunMetrics(rows: readonly TestRunRow[], checks: readonly RunnableCheck[]): CheckMetric[] {
  return checks.map((check) => {
    const scores = rows.map((r) => r.scores[check.name]).filter((s) => s !== undefined);
    const ok = scores.filter((s) => s.status === 'ok');
    const decided = ok.filter((s) => s.passed !== null);
    return {
      check: check.name,
      version: check.version,
      output_type: check.outputType,
      scored: ok.length,
      errors: scores.filter((s) => s.status === 'error').length,
      not_run: scores.filter((s) => s.status === 'not_run').length,
      mean: ok.length === 0 ? null : ok.reduce((sum, s) => sum + (s.value ?? 0), 0) / ok.length,
      pass_rate: decided.length === 0 ? null : decided.filter((s) => s.passed === true).length / decided.length,
    };
  });
}
