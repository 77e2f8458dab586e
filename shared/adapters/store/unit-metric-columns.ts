import type { Unit } from '../../contracts/schemas/index.ts';

/** The units table's columns of step figures, in table order (both stores). */
export const UNIT_METRIC_COLUMNS = ['duration_ms', 'cost_usd', 'llm_calls', 'tool_calls', 'tool_errors', 'input_tokens', 'output_tokens', 'errored'] as const;

/** Errors the assembler adds about the trace itself (a missing root, duplicate ids), not failures of the run. */
const ASSEMBLER_ERROR_PREFIX = 'tracecheck.';

/**
 * A unit's step figures as column values. Units assembled before the figures existed have no
 * `llm_calls`: their row gets nulls (which every aggregate skips), not zeros that would pull
 * percentiles down. `errored`: some span of the run ended in error. A run whose model calls are
 * all unpriced has a null cost too (shown as "unpriced").
 */
export function unitMetricValues(u: Unit): Record<(typeof UNIT_METRIC_COLUMNS)[number], number | null> {
  const known = u.llm_calls !== undefined;
  const errored = u.errors.some((e) => e.span_id !== undefined && !(e.type ?? '').startsWith(ASSEMBLER_ERROR_PREFIX));
  return {
    duration_ms: known ? (u.duration_ms ?? null) : null,
    // A run none of whose model calls the price table knows has an unknown cost, not a cost of 0.
    cost_usd: known && !(u.llm_calls! > 0 && (u.unpriced_llm_calls ?? 0) >= u.llm_calls!) ? (u.cost_usd ?? null) : null,
    llm_calls: known ? u.llm_calls! : null,
    tool_calls: known ? (u.tool_call_count ?? null) : null,
    tool_errors: known ? (u.tool_errors ?? null) : null,
    input_tokens: known ? (u.usage.input_tokens ?? 0) : null,
    output_tokens: known ? (u.usage.output_tokens ?? 0) : null,
    errored: known ? (errored ? 1 : 0) : null,
  };
}

/**
 * The unit's model calls and tool executions as text both stores' SQL can split (for figures
 * per tool and per model across calls): one line per step, `kind \t name \t latency_ms \t cost_usd
 * \t error \t tokens` (kind `llm` or `tool`; name the model or tool; cost and tokens empty where
 * none; error 1 or 0). ClickHouse 18.16 has no JSON arrays to unnest, so the steps are not read
 * from unit_json. Tabs and newlines in a name (hostile traces) become spaces. Empty: no steps.
 */
export function stepFigures(u: Unit): string {
  const clean = (s: string | null): string => (s ?? '').replace(/[\t\n\r]/g, ' ');
  const lines: string[] = [];
  for (const s of u.steps ?? []) {
    if (s.type === 'llm') lines.push(['llm', clean(s.model), String(s.latency_ms), s.cost_usd === null ? '' : String(s.cost_usd), s.status === 'error' ? '1' : '0', String(s.input_tokens + s.output_tokens)].join('\t'));
    else if (s.type === 'tool') lines.push(['tool', clean(s.name), String(s.latency_ms), '', s.status === 'error' ? '1' : '0', ''].join('\t'));
  }
  return lines.join('\n');
}
