import type { DuckDBValue } from '@duckdb/node-api';
import { q } from './duckdb-schema.ts';
import { whereClause } from './duckdb-sql.ts';
import { EXPLORE_ROW_COLUMNS, type ExploreSort, type ExploreVerdict, type NormalizedExplore } from './explore.ts';
import { UNIT_SUMMARY_COLUMNS } from './monitoring-rows.ts';

// The explorer's listing on DuckDB: values are bound ($1, …); the SQL text is constants. `units`
// holds each unit's latest revision only, so no merge is needed. The free-text search is a
// substring test on `search_text` (lower-cased dialog): DuckDB's fts extension is downloaded on
// first use, which an offline `tracecheck up` cannot do (measured in docs/benchmarks.md).

const SORT_KEYS: Record<ExploreSort, string> = {
  time: 'end_time_ms',
  cost: 'coalesce(cost_usd, -1)',
  duration: 'coalesce(duration_ms, -1)',
  tokens: 'coalesce(input_tokens + output_tokens, -1)',
};

/**
 * What a check-and-verdict filter asks of one of the unit's badges (units.score_badges), as the
 * JSON `json_contains` finds among them: the badges are the unit's rows of `scores`, so this is the
 * semi-join with `scores` it replaces, without scanning that table (duckdb-badges.ts).
 */
const VERDICTS: Record<ExploreVerdict | 'any', Record<string, string | boolean>> = {
  any: {},
  pass: { status: 'ok', passed: true },
  fail: { status: 'ok', passed: false },
  error: { status: 'error' },
  not_run: { status: 'not_run' },
};

// The row's badges come with it (units.score_badges, see duckdb-badges.ts).
const ROW_SELECT = [...UNIT_SUMMARY_COLUMNS, ...EXPLORE_ROW_COLUMNS, 'score_badges'].map(q).join(', ');

export function exploreDuckDbSql(nq: NormalizedExplore): { sql: string; values: DuckDBValue[] } {
  const w = whereClause(nq.conditions);
  const key = SORT_KEYS[nq.sort];
  const desc = nq.order === 'desc';
  const parts: string[] = nq.words.map((word) => `contains(search_text, ${w.bind(word)})`);
  if (nq.toolLine !== null) parts.push(`contains(chr(10) || coalesce(step_figures, ''), ${w.bind(nq.toolLine)})`);
  if (nq.model !== null) parts.push(`(model = ${w.bind(nq.model.name)} OR contains(chr(10) || coalesce(step_figures, ''), ${w.bind(nq.model.line)}))`);
  if (nq.check !== null) {
    parts.push(`json_contains(score_badges, ${w.bind(JSON.stringify({ check: nq.check.name, ...VERDICTS[nq.check.verdict ?? 'any'] }))})`);
  }
  if (nq.after !== null) {
    const k = w.bind(nq.after.key);
    parts.push(`(${key} ${desc ? '<' : '>'} ${k} OR (${key} = ${k} AND unit_id > ${w.bind(nq.after.unit_id)}))`);
  }
  const extra = parts.map((p) => ` AND ${p}`).join('');
  const sqlText = `SELECT ${ROW_SELECT}, ${key} AS sort_key FROM units${w.sql}${extra} ORDER BY sort_key ${desc ? 'DESC' : 'ASC'}, unit_id LIMIT ${w.bind(nq.limit)}`;
  return { sql: sqlText, values: w.values };
}
