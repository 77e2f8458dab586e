import { createHash } from 'node:crypto';
import { canonicalJson, type Score } from '../../../shared/contracts/schemas/index.ts';
import type { RunResult } from './result-types.ts';

/** Model and parameters as one readable label, e.g. `mock-sloppy temperature=1`. */
function variantLabel(params: Record<string, unknown>): string {
  const { model, ...rest } = params;
  const others = Object.keys(rest).sort().map((k) => `${k}=${canonicalJson(rest[k])}`);
  return [typeof model === 'string' ? model : canonicalJson(model ?? null), ...others].join(' ');
}

/**
 * A finished run as scores, one per (row, try, metric), so that CI results sit in the same table as
 * live ones: `unit_kind` "eval", the prompt as `agent_name`, the variant (model and parameters) as
 * `agent_version`, and `eval:<run id>` as `environment`. Ids are stable, so storing a resumed run
 * again replaces its scores instead of adding to them.
 */
export function runToScores(run: RunResult, nowMs: number): Score[] {
  const scores: Score[] = [];
  for (const prompt of run.prompts) {
    for (const row of prompt.rows) {
      const variant = variantLabel(row.params);
      const variantId = createHash('sha256').update(canonicalJson(row.params)).digest('hex').slice(0, 12);
      for (const t of row.tries) {
        const unitId = `eval:${run.runId}:${prompt.name}:${row.reference.id}:${variantId}:${t.try}`;
        for (const m of t.metrics) {
          const numeric = typeof m.value === 'number' ? m.value : typeof m.value === 'boolean' ? (m.value ? 1 : 0) : null;
          const failed = m.error !== undefined;
          scores.push({
            schema_version: 1,
            unit_id: unitId,
            unit_kind: 'eval',
            check: m.name,
            check_version: m.checkVersion ?? 'eval',
            status: failed ? 'error' : 'ok',
            value: failed ? null : numeric,
            passed: failed ? null : m.passed,
            explanation: m.explanation ?? (typeof m.value === 'string' ? m.value.slice(0, 1000) : ''),
            method: m.method ?? 'code',
            error: failed ? m.error! : null,
            judge_model: null,
            latency_ms: Math.max(0, Math.round(t.latencyMs)),
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: 0,
            agent_name: prompt.name,
            agent_version: variant,
            environment: `eval:${run.runId}`,
            service: 'tracecheck-eval',
            unit_end_time_ms: Date.parse(run.finishedAt) || nowMs,
            created_at_ms: nowMs,
          });
        }
      }
    }
  }
  return scores;
}
