import type { Condition } from './conditions.ts';
import { joinSql, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';

// `check` is a keyword, so it is back-quoted; every other column is a plain identifier.
const ident = (name: string): SqlFragment => (name === 'check' ? sql`\`check\`` : sqlIdentifier(name));

/** Renders a condition tree with every value quoted (18.16 has no query parameters). */
function render(cond: Condition): SqlFragment {
  switch (cond.kind) {
    case 'cmp': {
      // Booleans are stored as UInt8 (passed), so they compare as 0/1.
      const value = typeof cond.value === 'boolean' ? (cond.value ? 1 : 0) : cond.value;
      return sql`${ident(cond.column)} ${sqlOperator(cond.op)} ${value}`;
    }
    case 'in':
      return sql`${ident(cond.column)} IN (${joinSql(cond.values.map((v) => sql`${v}`), ', ')})`;
    case 'null':
      return sql`isNull(${ident(cond.column)})`;
    case 'and':
    case 'or':
      return sql`(${joinSql(cond.parts.map(render), cond.kind === 'and' ? ' AND ' : ' OR ')})`;
  }
}

const OPERATORS = { '=': sql`=`, '>': sql`>`, '>=': sql`>=`, '<': sql`<` } as const;
const sqlOperator = (op: keyof typeof OPERATORS): SqlFragment => OPERATORS[op];

// Columns every version of a score key shares: they describe the unit (or are the key), so a filter
// on them keeps or drops all versions of a key together and may run before FINAL's merge, as
// PREWHERE: only the matching rows are then read and merged. Everything a re-score can change
// (status, passed, value, created_at_ms) stays in WHERE, after the merge, and so does the unit's
// end time: a later revision of a unit (a session that grew) ends later, and a PREWHERE on
// unit_end_time_ms kept the superseded score of a range that only the old end time falls in (both
// 18.16 and 26.7 apply PREWHERE before FINAL's merge).
const UNIT_COLUMNS_OF_SCORES = new Set(['check', 'check_version', 'unit_id', 'unit_revision', 'project', 'agent_name', 'agent_version', 'environment', 'service', 'unit_kind']);

/**
 * Settings that would make FINAL keep more than one version of a key, pinned off on servers that
 * have them (a user's profile may turn them on): a later revision's scores can land in another
 * partition (the month of its later end time), and `do_not_merge_across_partitions_select_final`
 * would then keep both; `optimize_move_to_prewhere_if_final` would move WHERE filters before the merge.
 */
export const FINAL_SAFE_SETTINGS: Readonly<Record<string, 0>> = { do_not_merge_across_partitions_select_final: 0, optimize_move_to_prewhere_if_final: 0 };

function columnsOf(cond: Condition): string[] {
  return 'parts' in cond ? cond.parts.flatMap(columnsOf) : [cond.column];
}

/** ` PREWHERE <unit filters> WHERE <the rest>` for a read of scores with FINAL. */
export function scoreFilters(conditions: readonly Condition[]): SqlFragment {
  const early = conditions.filter((c) => columnsOf(c).every((col) => UNIT_COLUMNS_OF_SCORES.has(col)));
  const late = conditions.filter((c) => !early.includes(c));
  const pre = early.length > 0 ? sql` PREWHERE ${joinSql(early.map(render), ' AND ')}` : sql``;
  return sql`${pre}${where(late)}`;
}

/**
 * ` WHERE <conditions>`, and ` WHERE 1` for none: on 18.16 a read of a Distributed table (a sharded
 * cluster) with FINAL and ORDER BY but no WHERE fails on the shards ("Cannot find column write_seq
 * in source stream"); with any WHERE it runs.
 */
export function where(conditions: readonly Condition[]): SqlFragment {
  return conditions.length > 0 ? sql` WHERE ${joinSql(conditions.map(render), ' AND ')}` : sql` WHERE 1`;
}
