import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { where } from './clickhouse-filters.ts';
import { EXPLORE_ROW_COLUMNS, exploreFields, rowToBadge, type ExploreRow, type ExploreSort, type ExploreVerdict, type NormalizedExplore } from './explore.ts';
import { UNIT_SUMMARY_COLUMNS, rowToUnitSummary } from './monitoring-rows.ts';
import { joinSql, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';

// The explorer's listing on ClickHouse (any version from 18.16). Values are quoted (sql-quote.ts).
// `units` is a ReplacingMergeTree: FINAL makes every filter see a unit's latest revision only.

const SORT_KEYS: Record<ExploreSort, SqlFragment> = {
  time: sql`toFloat64(end_time_ms)`,
  cost: sql`ifNull(cost_usd, -1)`,
  duration: sql`ifNull(duration_ms, -1)`,
  tokens: sql`ifNull(input_tokens + output_tokens, -1)`,
};

const ROW_SELECT = joinSql([...UNIT_SUMMARY_COLUMNS, ...EXPLORE_ROW_COLUMNS].map((c) => sqlIdentifier(c)), ', ');

const VERDICTS: Record<ExploreVerdict | 'any', SqlFragment> = {
  any: sql`1`,
  pass: sql`status = 'ok' AND passed = 1`,
  fail: sql`status = 'ok' AND passed = 0`,
  error: sql`status = 'error'`,
  not_run: sql`status = 'not_run'`,
};

/** Text, tool and model conditions (all substring tests on columns every revision row carries). */
function contentConditions(nq: NormalizedExplore): SqlFragment[] {
  const out: SqlFragment[] = nq.words.map((w) => sql`position(search_text, ${w}) > 0`);
  if (nq.toolLine !== null) out.push(sql`position(concat('\n', step_figures), ${nq.toolLine}) > 0`);
  if (nq.model !== null) out.push(sql`(model = ${nq.model.name} OR position(concat('\n', step_figures), ${nq.model.line}) > 0)`);
  return out;
}

export function exploreSql(db: SqlFragment, nq: NormalizedExplore): SqlFragment {
  const key = SORT_KEYS[nq.sort];
  const desc = nq.order === 'desc';
  const parts: SqlFragment[] = contentConditions(nq);
  if (nq.check !== null) {
    parts.push(
      sql`unit_id IN (SELECT unit_id FROM ${db}.scores FINAL PREWHERE project = ${nq.project} AND \`check\` = ${nq.check.name} WHERE ${VERDICTS[nq.check.verdict ?? 'any']})`,
    );
  }
  if (nq.after !== null) {
    const before = desc ? sql`${key} < ${nq.after.key}` : sql`${key} > ${nq.after.key}`;
    parts.push(sql`(${before} OR (${key} = ${nq.after.key} AND unit_id > ${nq.after.unit_id}))`);
  }
  const extra = parts.length > 0 ? sql` AND ${joinSql(parts, ' AND ')}` : sql``;
  // A text search first narrows to the units some row of which has the words (a scan without
  // FINAL, in parallel), so that FINAL merges only their rows; WHERE then re-checks the latest.
  const narrowed = nq.words.length > 0 ? sql` PREWHERE unit_id IN (SELECT unit_id FROM ${db}.units WHERE project = ${nq.project} AND ${joinSql(contentConditions(nq), ' AND ')})` : sql``;
  return sql`SELECT ${ROW_SELECT}, ${key} AS sort_key FROM ${db}.units FINAL${narrowed}${where(nq.conditions)}${extra} ORDER BY sort_key ${desc ? sql`DESC` : sql`ASC`}, unit_id LIMIT ${nq.limit}`;
}

/** The rows of a page with their latest scores as badges. */
export async function exploreClickHouse(connection: ClickHouseConnection, nq: NormalizedExplore): Promise<ExploreRow[]> {
  const db = connection.db;
  const rows = await connection.select('exploreUnits', exploreSql(db, nq));
  if (rows.length === 0) return [];
  const ids = joinSql(
    rows.map((r) => sql`${String(r.unit_id)}`),
    ', ',
  );
  const scoreRows = await connection.select(
    'exploreScores',
    sql`SELECT unit_id, \`check\`, check_version, status, passed, value FROM ${db}.scores FINAL PREWHERE project = ${nq.project} AND unit_id IN (${ids}) ORDER BY unit_id, \`check\`, check_version`,
  );
  const badges = new Map<string, ReturnType<typeof rowToBadge>[]>();
  for (const s of scoreRows) {
    const id = String(s.unit_id);
    badges.set(id, [...(badges.get(id) ?? []), rowToBadge(s)]);
  }
  return rows.map((r) => ({ ...rowToUnitSummary(r), ...exploreFields(r), scores: badges.get(String(r.unit_id)) ?? [] }));
}
