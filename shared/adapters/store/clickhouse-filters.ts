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
// (status, passed, value, created_at_ms) stays in WHERE, after the merge.
const UNIT_COLUMNS_OF_SCORES = new Set(['check', 'check_version', 'unit_id', 'unit_revision', 'project', 'agent_name', 'agent_version', 'environment', 'service', 'unit_kind', 'unit_end_time_ms']);

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

export function where(conditions: readonly Condition[]): SqlFragment {
  return conditions.length > 0 ? sql` WHERE ${joinSql(conditions.map(render), ' AND ')}` : sql``;
}
