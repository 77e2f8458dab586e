import { stringify } from 'yaml';
import type { RunResult } from '../result-types.ts';

/**
 * The run as YAML that mirrors the config: each prompt's settings as composed, then its
 * references with the results inlined (per variant: actual and every metric's value and pass/fail
 * per try, then the rolled-up result).
 */
export function renderYamlReport(run: RunResult): string {
  const doc = {
    run_id: run.runId,
    config: run.configFile,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    passed: run.passed,
    summary: run.summary,
    settings: run.config,
    prompts: run.prompts.map((p) => ({
      ...p.config,
      name: p.name,
      file: p.file,
      n_tries: p.nTries,
      metrics_rollup: p.rollup,
      references: p.rows.map((r) => ({
        id: r.reference.id,
        input: r.reference.input,
        ...(r.reference.expected === null ? {} : { expected: r.reference.expected }),
        ...(r.reference.skip ? { skip: true } : {}),
        params: r.params,
        result: r.status,
        counts: r.counts,
        tries: r.tries.map((t) => ({
          actual: t.actual,
          ...(t.error === undefined ? {} : { error: t.error }),
          passed: t.passed,
          metrics: Object.fromEntries(
            t.metrics.map((m) => [
              m.name,
              { value: m.value, passed: m.passed, ...(m.error === undefined ? {} : { error: m.error }), ...(m.explanation ? { explanation: m.explanation } : {}) },
            ]),
          ),
        })),
      })),
    })),
  };
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}
