import type { ClickHouseConnection } from './clickhouse-connection.ts';
import { where } from './clickhouse-filters.ts';
import { EXPLORE_ROW_COLUMNS, exploreFields, rowToBadge, type ExploreRow, type ExploreSort, type ExploreVerdict, type NormalizedExplore } from './explore.ts';
import { UNIT_SUMMARY_COLUMNS, rowToUnitSummary } from './monitoring-rows.ts';
import { joinSql, sql, sqlIdentifier, type SqlFragment } from './sql-quote.ts';
import { UNIT_TIMES } from './clickhouse-unit-times.ts';

// The explorer's listing on ClickHouse (any version from 18.16). Values are quoted (sql-quote.ts).
// `units` is a ReplacingMergeTree(assembled_at_ms) keyed by unit_id: a unit's latest revision is
// its row with the highest assembled_at_ms (then write_seq, the later insert), what FINAL keeps.
// FINAL itself is not used: it merges whole granules of every part a key may be in, and took most
// of a page's time at a million units (docs/benchmarks.md#explorer); `LIMIT 1 BY` over the few
// rows of the page's units picks the same row.

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

/**
 * A newest-first list reads the hour before its cursor (or now) first, in PREWHERE on
 * end_time_ms, and the whole table only when that hour does not fill the page. The hour's rows sit
 * in few granules while recent units are in parts of their own (or their ids cluster), and then it
 * reads a fraction of the filter columns. A search reads the whole table at once: an hour of units
 * touched a quarter of the search text's granules at a million units and a day nearly all of them,
 * so a rare word paid for the window and then the table (docs/benchmarks.md#explorer).
 */
const TIME_WINDOWS_MS: readonly number[] = [3_600_000];

/**
 * With the time table (clickhouse-unit-times.ts) a window is a range of its primary key, so wider
 * windows cost in proportion to what they hold: an hour, a day, a week, 30 days, then everything.
 */
const INDEXED_TIME_WINDOWS_MS: readonly number[] = [3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000];

/** `%word%` for LIKE: the word's own `\\`, `%` and `_` match themselves. */
export const likeContaining = (word: string): string => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Text, tool and model conditions (all substring tests on columns every revision row carries).
 * A word is a LIKE '%word%': the same test as position(), and the one a server's ngram skip index
 * on search_text answers (clickhouse-schema.ts), skipping granules without the word's ngrams.
 */
function contentConditions(nq: NormalizedExplore): SqlFragment[] {
  const out: SqlFragment[] = nq.words.map((w) => sql`search_text LIKE ${likeContaining(w)}`);
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

const idList = (ids: readonly string[]): SqlFragment =>
  joinSql(
    ids.map((id) => sql`${id}`),
    ', ',
  );

/**
 * Units with a score of the check (with the verdict, if set). Over every stored row of the scores
 * (a superset: a re-score may have changed the verdict) unless `ids` is given: then over the
 * latest row of each (check, unit, check version) of those units, what FINAL would keep.
 */
function checkSql(db: SqlFragment, nq: NormalizedExplore & { check: NonNullable<NormalizedExplore['check']> }, ids: readonly string[] | null): SqlFragment {
  const verdict = VERDICTS[nq.check.verdict ?? 'any'];
  const pre = sql`PREWHERE project = ${nq.project} AND \`check\` = ${nq.check.name}`;
  if (ids === null) return sql`SELECT unit_id FROM ${db}.scores ${pre} WHERE ${verdict}`;
  return sql`SELECT unit_id FROM (SELECT unit_id, status, passed FROM ${db}.scores ${pre} AND unit_id IN (${idList(ids)}) ORDER BY unit_id, check_version, write_seq DESC LIMIT 1 BY unit_id, check_version) WHERE ${verdict}`;
}

const orderSql = (nq: NormalizedExplore): SqlFragment => sql`ORDER BY sort_key ${nq.order === 'desc' ? sql`DESC` : sql`ASC`}, unit_id`;

/**
 * Candidates: the first `k` rows in page order among every stored row (any revision) that
 * matches, with the row's identity (assembled_at_ms, write_seq). A scan without FINAL reads only
 * the filter columns; `fromMs` bounds end_time_ms in PREWHERE (a time window).
 */
export function candidatesSql(db: SqlFragment, nq: NormalizedExplore, after: Position | null, k: number, fromMs: number | null, table: 'units' | typeof UNIT_TIMES = 'units'): SqlFragment {
  const parts: SqlFragment[] = [...contentConditions(nq), ...afterSql(nq, after)];
  if (nq.check !== null) parts.push(sql`unit_id IN (${checkSql(db, { ...nq, check: nq.check }, null)})`);
  const extra = parts.length > 0 ? sql` AND ${joinSql(parts, ' AND ')}` : sql``;
  const window = fromMs === null ? sql`` : sql` PREWHERE end_time_ms >= ${Math.floor(fromMs)}`;
  return sql`SELECT unit_id, ${SORT_KEYS[nq.sort]} AS sort_key, assembled_at_ms, write_seq FROM ${db}.${sqlIdentifier(table)}${window}${where(nq.conditions)}${extra} ${orderSql(nq)} LIMIT ${k}`;
}

/** The latest row of each unit (no filter: the caller compares it with the candidate rows). */
export function latestRowsSql(db: SqlFragment, nq: NormalizedExplore, ids: readonly string[]): SqlFragment {
  return sql`SELECT ${ROW_SELECT}, ${SORT_KEYS[nq.sort]} AS sort_key, assembled_at_ms, write_seq FROM ${db}.units PREWHERE unit_id IN (${idList(ids)}) ORDER BY unit_id, assembled_at_ms DESC, write_seq DESC LIMIT 1 BY unit_id`;
}

const num = (v: unknown): number => Number(v);
const identity = (r: Record<string, unknown>): string => `${String(r.unit_id)}\n${String(r.assembled_at_ms)}\n${String(r.write_seq)}`;

/**
 * The first `k` matching rows (any revision) after `after`. Newest first, a time window is read
 * before the whole table: when it holds `k` rows they are the first `k` of the table too (every
 * row outside it ended earlier).
 */
async function candidates(connection: ClickHouseConnection, nq: NormalizedExplore, after: Position | null, k: number, nowMs: number, unitTimes: boolean): Promise<Record<string, unknown>[]> {
  // A search reads `units` (the search text, and its ngram index where the server has one).
  const table = unitTimes && nq.words.length === 0 ? UNIT_TIMES : 'units';
  // A check filter's scores subquery would run again in every round: one round reads it once.
  const windowed = nq.sort === 'time' && nq.order === 'desc' && nq.check === null && nq.words.length === 0;
  const anchor = after?.key ?? nowMs;
  const windows = table === UNIT_TIMES ? INDEXED_TIME_WINDOWS_MS : TIME_WINDOWS_MS;
  const lows: Array<number | null> = windowed ? [...windows.map((w) => anchor - w), null] : [null];
  let rows: Record<string, unknown>[] = [];
  for (const low of lows) {
    rows = await connection.select('exploreCandidates', candidatesSql(connection.db, nq, after, k, low, table));
    if (rows.length >= k) return rows;
  }
  return rows;
}

/** Negative when `a` sorts before `b` in the page order. */
function compare(nq: NormalizedExplore, a: Position, b: Position): number {
  if (a.key !== b.key) return (a.key < b.key) === (nq.order === 'asc') ? -1 : 1;
  return a.unit_id < b.unit_id ? -1 : a.unit_id > b.unit_id ? 1 : 0;
}

/**
 * A page in rounds: candidates from the rows of any revision, then the latest row of each of
 * their units. A unit is on the page when its latest row is one of the candidate rows (so it
 * matched every unit filter) and, with a check filter, its latest scores pass it. Every unit
 * whose latest row belongs on the page before the last candidate is among them, so the rows up
 * to it are exact; when superseded revisions crowded the candidates out of a full page, the next
 * round starts after the last candidate.
 */
async function explorePage(connection: ClickHouseConnection, nq: NormalizedExplore, nowMs: number, unitTimes: boolean): Promise<Record<string, unknown>[]> {
  // Room for a few superseded revisions among the candidates; more cost another round.
  const k = nq.limit + 20;
  const out: Record<string, unknown>[] = [];
  let after: Position | null = nq.after;
  for (;;) {
    const found = await candidates(connection, nq, after, k, nowMs, unitTimes);
    if (found.length === 0) return out;
    const last = found[found.length - 1];
    const boundary: Position = { key: num(last.sort_key), unit_id: String(last.unit_id) };
    const complete = found.length < k;
    const ids = [...new Set(found.map((c) => String(c.unit_id)))];
    const matched = new Set(found.map(identity));
    let rows = (await connection.select('exploreUnits', latestRowsSql(connection.db, nq, ids))).filter((r) => matched.has(identity(r)));
    if (nq.check !== null && rows.length > 0) {
      const passing = new Set((await connection.select('exploreCheck', checkSql(connection.db, { ...nq, check: nq.check }, rows.map((r) => String(r.unit_id))))).map((r) => String(r.unit_id)));
      rows = rows.filter((r) => passing.has(String(r.unit_id)));
    }
    const position = (r: Record<string, unknown>): Position => ({ key: num(r.sort_key), unit_id: String(r.unit_id) });
    rows.sort((a, b) => compare(nq, position(a), position(b)));
    for (const r of rows) if (complete || compare(nq, position(r), boundary) <= 0) out.push(r);
    if (complete || out.length >= nq.limit) return out.slice(0, nq.limit);
    after = boundary;
  }
}

/**
 * The rows of a page with their latest scores as badges. `nowMs` anchors the time windows of a
 * first newest-first page (a later page's anchor is its cursor); `unitTimes`: candidates come from
 * the time table (but a search's).
 */
export async function exploreClickHouse(connection: ClickHouseConnection, nq: NormalizedExplore, nowMs: number, unitTimes = false): Promise<ExploreRow[]> {
  const db = connection.db;
  const rows = await explorePage(connection, nq, nowMs, unitTimes);
  if (rows.length === 0) return [];
  // The latest row of each (check, unit, check version), as FINAL would merge them.
  const scoreRows = await connection.select(
    'exploreScores',
    sql`SELECT unit_id, \`check\`, check_version, status, passed, value FROM ${db}.scores PREWHERE project = ${nq.project} AND unit_id IN (${idList(rows.map((r) => String(r.unit_id)))}) ORDER BY unit_id, \`check\`, check_version, write_seq DESC LIMIT 1 BY unit_id, \`check\`, check_version`,
  );
  const badges = new Map<string, ReturnType<typeof rowToBadge>[]>();
  for (const s of scoreRows) {
    const id = String(s.unit_id);
    badges.set(id, [...(badges.get(id) ?? []), rowToBadge(s)]);
  }
  return rows.map((r) => ({ ...rowToUnitSummary(r), ...exploreFields(r), scores: badges.get(String(r.unit_id)) ?? [] }));
}
