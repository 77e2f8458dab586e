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

interface Position {
  key: number;
  unit_id: string;
}

/** Rows after `after` in the page order. */
function afterSql(nq: NormalizedExplore, after: Position | null): SqlFragment[] {
  if (after === null) return [];
  const key = SORT_KEYS[nq.sort];
  const beyond = nq.order === 'desc' ? sql`${key} < ${after.key}` : sql`${key} > ${after.key}`;
  return [sql`(${beyond} OR (${key} = ${after.key} AND unit_id > ${after.unit_id}))`];
}

/**
 * The filters. With `ids` (the candidates) the check's scores are read merged (FINAL: each key's
 * latest row), and only those of the candidates; without, any row of them (a superset).
 */
function filtersSql(db: SqlFragment, nq: NormalizedExplore, after: Position | null, ids: SqlFragment | null): SqlFragment {
  const parts: SqlFragment[] = [...contentConditions(nq), ...afterSql(nq, after)];
  if (nq.check !== null) {
    const scores = ids === null ? sql`${db}.scores` : sql`${db}.scores FINAL`;
    const only = ids === null ? sql`` : sql` AND unit_id IN (${ids})`;
    parts.push(sql`unit_id IN (SELECT unit_id FROM ${scores} PREWHERE project = ${nq.project} AND \`check\` = ${nq.check.name}${only} WHERE ${VERDICTS[nq.check.verdict ?? 'any']})`);
  }
  const extra = parts.length > 0 ? sql` AND ${joinSql(parts, ' AND ')}` : sql``;
  return sql`${where(nq.conditions)}${extra}`;
}

const orderSql = (nq: NormalizedExplore): SqlFragment => sql`ORDER BY sort_key ${nq.order === 'desc' ? sql`DESC` : sql`ASC`}, unit_id`;

/**
 * Candidates: the first `k` rows in page order among every stored row (any revision) that
 * matches. A scan without FINAL runs on every core and reads only the filter columns; FINAL over
 * the whole table (one merge stream on 18.16) took seconds at a million units.
 */
export function candidatesSql(db: SqlFragment, nq: NormalizedExplore, after: Position | null, k: number): SqlFragment {
  return sql`SELECT unit_id, ${SORT_KEYS[nq.sort]} AS sort_key FROM ${db}.units${filtersSql(db, nq, after, null)} ${orderSql(nq)} LIMIT ${k}`;
}

/** The latest revision of the candidates, filtered again: what the page may show of them. */
export function exploreSql(db: SqlFragment, nq: NormalizedExplore, ids: readonly string[], after: Position | null): SqlFragment {
  const list = joinSql(
    ids.map((id) => sql`${id}`),
    ', ',
  );
  return sql`SELECT ${ROW_SELECT}, ${SORT_KEYS[nq.sort]} AS sort_key FROM ${db}.units FINAL PREWHERE unit_id IN (${list})${filtersSql(db, nq, after, list)} ${orderSql(nq)} LIMIT ${nq.limit}`;
}

const num = (v: unknown): number => Number(v);
/** `a` sorts at or before `b` in the page order. */
function atOrBefore(nq: NormalizedExplore, a: Position, b: Position): boolean {
  if (a.key !== b.key) return nq.order === 'desc' ? a.key > b.key : a.key < b.key;
  return a.unit_id <= b.unit_id;
}

/**
 * A page in two steps: candidates from the rows of any revision, then the latest revision of
 * those, re-filtered. Every unit whose latest revision belongs on the page before the last
 * candidate is a candidate, so the rows up to it are exact; when superseded revisions crowded
 * the candidates out of a full page, the next round starts after the last candidate.
 */
async function explorePage(connection: ClickHouseConnection, nq: NormalizedExplore): Promise<Record<string, unknown>[]> {
  const k = nq.limit * 2 + 20;
  const out: Record<string, unknown>[] = [];
  let after: Position | null = nq.after;
  for (;;) {
    const candidates = await connection.select('exploreCandidates', candidatesSql(connection.db, nq, after, k));
    if (candidates.length === 0) return out;
    const last = candidates[candidates.length - 1];
    const boundary: Position = { key: num(last.sort_key), unit_id: String(last.unit_id) };
    const ids = [...new Set(candidates.map((c) => String(c.unit_id)))];
    const rows = await connection.select('exploreUnits', exploreSql(connection.db, { ...nq, limit: nq.limit - out.length }, ids, after));
    const complete = candidates.length < k;
    for (const r of rows) if (complete || atOrBefore(nq, { key: num(r.sort_key), unit_id: String(r.unit_id) }, boundary)) out.push(r);
    if (complete || out.length >= nq.limit) return out.slice(0, nq.limit);
    after = boundary;
  }
}

/** The rows of a page with their latest scores as badges. */
export async function exploreClickHouse(connection: ClickHouseConnection, nq: NormalizedExplore): Promise<ExploreRow[]> {
  const db = connection.db;
  const rows = await explorePage(connection, nq);
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
