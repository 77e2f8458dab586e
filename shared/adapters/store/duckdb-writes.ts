import type { DuckDBAppender, DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Logger } from '../../runtime/logging/index.ts';
import type { UnitRevision } from './contract.ts';
import { SCORE_STAGING_COLUMNS, SCORES_STAGING, UNIT_STAGING_COLUMNS, UNITS_STAGING, q, type UnitStagingRow } from './duckdb-schema.ts';
import { SCORE_FIELDS, UNIT_COLUMNS, lastPerScoreKey, scoreToRow, type ScoreRow } from './rows.ts';
import { idChunks } from './id-chunks.ts';
import { mergeBadges, scoresByUnit, storedBadges, updateBadges, type BadgeScore } from './duckdb-badges.ts';
import { rowToUnitRevision } from './revisions.ts';
import type { ScoredUnitsPlan } from './scored-unit-write.ts';

const LATEST_REVISION = (alias: string): string => `(SELECT max(r.revision) FROM unit_revisions r WHERE r.unit_id = ${alias}.unit_id)`;

/** A statement run after a batch is staged, with its bound values. */
export interface StagedStatement {
  sql: string;
  values?: DuckDBValue[];
}

// The tables hold no primary key (see duckdb-schema.ts): a key stays unique because every write
// runs alone in a transaction and deletes the row it replaces before appending. A delete scans the
// table, so it runs only for units stored before this write (`prior`), passed as a bound IN list
// that DuckDB filters in the scan; a batch of new units appends and scans nothing.
const deletesOf = (prior: readonly string[], sql: (inList: string) => string): StagedStatement[] =>
  // Bound IN lists (DuckDB binds each; the list is pushed into the table's scan as a filter).
  idChunks(prior).map((ids) => ({ sql: sql(ids.map((_, j) => `$${j + 1}`).join(', ')), values: ids }));

/**
 * Scores without a revision are of the unit's latest; every score goes to the history, and to
 * `scores` only when it is of the unit's latest revision (`to_latest`; a replay of an older one
 * stays in history). `prior`: the units that may already hold a score of the same key, or `'any'`
 * when the caller does not know (one scan of each table per write).
 */
export const SCORE_WRITES = (rows: readonly ScoreRow[], prior: readonly string[] | 'any'): StagedStatement[] => {
  const cols = SCORE_FIELDS.map(q).join(', ');
  const revisionKey = `(unit_id, unit_revision, "check", check_version)`;
  const latestKey = `(unit_id, "check", check_version)`;
  const deletes = (table: string, key: string, where: string): StagedStatement[] => {
    const sql = (inList: string): string => `DELETE FROM ${table} WHERE ${inList === '' ? 'true' : `unit_id IN (${inList})`} AND ${key} IN (SELECT ${key.slice(1, -1)} FROM ${SCORES_STAGING}${where})`;
    return prior === 'any' ? [{ sql: sql('') }] : deletesOf(prior, sql);
  };
  return [
    ...(rows.some((r) => r.unit_revision === null) ? [{ sql: `UPDATE ${SCORES_STAGING} SET unit_revision = coalesce(${LATEST_REVISION(SCORES_STAGING)}, 1) WHERE unit_revision IS NULL` }] : []),
    ...(prior === 'any' ? [{ sql: `UPDATE ${SCORES_STAGING} SET to_latest = unit_revision >= coalesce(${LATEST_REVISION(SCORES_STAGING)}, 0)` }] : []),
    ...deletes('score_revisions', revisionKey, ''),
    { sql: `INSERT INTO score_revisions (${cols}) SELECT ${cols} FROM ${SCORES_STAGING}` },
    ...deletes('scores', latestKey, ' WHERE to_latest'),
    { sql: `INSERT INTO scores (${cols}, created_at) SELECT ${cols}, epoch_ms(CAST(created_at_ms AS BIGINT)) FROM ${SCORES_STAGING} WHERE to_latest` },
  ];
};

// New revisions join the history; the latest one of each unit becomes the unit (replacing the
// row of a unit stored before). The unit's JSON is kept once, in its revision: `units.unit_json`
// is written empty (rows written before hold it too) and read through the revision (UNIT_JSON_OF).
// Written twice, the JSON was half of the bytes every scored unit cost DuckDB (its log and
// checkpoints): about a quarter of the store's CPU.
const UNIT_WRITES = (prior: readonly string[]): StagedStatement[] => {
  const cols = UNIT_COLUMNS.map(q).join(', ');
  const values = UNIT_COLUMNS.map((x) => (x === 'unit_json' ? `'' AS ${q(x)}` : q(x))).join(', ');
  return [
    { sql: `INSERT INTO unit_revisions SELECT unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, unit_json FROM ${UNITS_STAGING} WHERE fresh` },
    ...deletesOf(prior, (inList) => `DELETE FROM units WHERE unit_id IN (${inList})`),
    { sql: `INSERT INTO units (${cols}, revision, score_badges) SELECT ${values}, revision, score_badges FROM ${UNITS_STAGING} WHERE is_latest` },
  ];
};

export const REVISION_SELECT = `unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, CASE WHEN content_hash = '' THEN unit_json ELSE '' END AS legacy_json`;

/**
 * One value into a staging column (text, double or boolean, see stagingType). The typed appends
 * store what `appendValue` did (it boxes each value in a native DuckDB value first, which cost
 * more than the row's write and left garbage for each cell); anything else goes through it.
 */
function appendCell(appender: DuckDBAppender, value: DuckDBValue): void {
  if (value === null) appender.appendNull();
  else if (typeof value === 'string') appender.appendVarchar(value);
  else if (typeof value === 'number') appender.appendDouble(value);
  else if (typeof value === 'boolean') appender.appendBoolean(value);
  else appender.appendValue(value);
}

/**
 * Appends rows to a staging table, runs the statements that move them (then `moved`, while the
 * staged rows are still there), and empties it. Inside a transaction.
 */
export async function moveThroughStaging<K extends string>(
  c: DuckDBConnection,
  staging: string,
  columns: readonly K[],
  rows: readonly Record<K, DuckDBValue>[],
  statements: readonly StagedStatement[],
  moved?: () => Promise<void>,
): Promise<void> {
  if (rows.length === 0) return;
  await c.run(`DELETE FROM ${staging}`);
  const appender = await c.createAppender(staging, 'main', 'temp');
  try {
    for (const row of rows) {
      for (const col of columns) appendCell(appender, row[col]);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  for (const statement of statements) await c.run(statement.sql, statement.values);
  if (moved) await moved();
  await c.run(`DELETE FROM ${staging}`);
}

/** Stored revisions of the given units (up to 1,000, one bound value each). */
export async function readRevisions(c: DuckDBConnection, unitIds: readonly string[], log: Logger): Promise<UnitRevision[]> {
  const rows = (await c.runAndReadAll(`SELECT ${REVISION_SELECT} FROM unit_revisions WHERE unit_id IN (${unitIds.map((_, j) => `$${j + 1}`).join(', ')})`, [...unitIds])).getRowObjectsJS();
  return rows.map((r) => rowToUnitRevision(r, log));
}

/** Writes a plan of `writeScoredUnits` through the staging tables. Inside the write's transaction. */
export async function writePlan(c: DuckDBConnection, plan: ScoredUnitsPlan): Promise<void> {
  // The units stored before: only their rows can be replaced (see deletesOf).
  const latest = new Map<string, number>();
  for (const k of plan.known) latest.set(k.unit_id, Math.max(latest.get(k.unit_id) ?? 0, k.revision));
  const prior = [...latest.keys()];
  const priorSet = new Set(prior);
  // One staged row per (unit, revision): the last item of a revision carries its latest form.
  const staged = new Map<string, UnitStagingRow>();
  for (const { decision: d, row, fingerprint } of plan.accepted) {
    latest.set(d.unit_id, Math.max(latest.get(d.unit_id) ?? 0, d.revision));
    staged.set(JSON.stringify([d.unit_id, d.revision]), { ...row, revision: d.revision, ...fingerprint, stored_at_ms: plan.storedAtMs, is_latest: d.latest, fresh: d.fresh, score_badges: null });
  }
  const stagedRows = [...staged.values()];
  // A stored unit's row is replaced when this write carries its latest revision.
  const replaced = prior.filter((id) => staged.get(JSON.stringify([id, latest.get(id)]))?.is_latest === true);
  const scoreRows = lastPerScoreKey(plan.scores.map(scoreToRow)).map((r) => ({ ...r, to_latest: Number(r.unit_revision) >= (latest.get(String(r.unit_id)) ?? 0) }));
  // The badges of every unit written or scored: those stored (read before its row is replaced) with this write's scores.
  const current = scoreRows.filter((r) => r.to_latest).map(badgeScore);
  const badgeUnits = new Set([...stagedRows.filter((r) => r.is_latest === true).map((r) => String(r.unit_id)), ...current.map((s) => s.unit_id)]);
  const before = await storedBadges(c, [...badgeUnits].filter((id) => priorSet.has(id)));
  const byUnit = scoresByUnit(current);
  const badges = new Map([...badgeUnits].map((id) => [id, mergeBadges(before.get(id) ?? [], byUnit.get(id) ?? [])]));
  for (const r of stagedRows) if (r.is_latest === true) r.score_badges = badges.get(String(r.unit_id)) ?? '[]';
  await moveThroughStaging(c, UNITS_STAGING, UNIT_STAGING_COLUMNS.map((x) => x.name), stagedRows, UNIT_WRITES(replaced));
  const scoredPrior = [...new Set(scoreRows.map((r) => String(r.unit_id)))].filter((id) => priorSet.has(id));
  await moveThroughStaging(c, SCORES_STAGING, SCORE_STAGING_COLUMNS, scoreRows, SCORE_WRITES(scoreRows, scoredPrior));
  // Units scored here whose rows this write did not replace.
  const inserted = new Set(stagedRows.filter((r) => r.is_latest === true).map((r) => String(r.unit_id)));
  await updateBadges(c, new Map([...badges].filter(([id]) => !inserted.has(id) && before.has(id))));
}

const badgeScore = (r: Record<string, unknown>): BadgeScore => ({
  unit_id: String(r.unit_id),
  check: String(r.check),
  check_version: String(r.check_version),
  status: String(r.status),
  passed: r.passed === null || r.passed === undefined ? null : r.passed === true || Number(r.passed) === 1,
  value: typeof r.value === 'number' ? r.value : null,
});

/**
 * Scores written on their own (their units stored before): after they are moved, the badges of
 * the units whose latest revision they are of. Runs while the scores are staged.
 */
export async function badgesOfStagedScores(c: DuckDBConnection): Promise<void> {
  const rows = (await c.runAndReadAll(`SELECT unit_id, "check", check_version, status, passed, value FROM ${SCORES_STAGING} WHERE to_latest`)).getRowObjectsJS();
  if (rows.length === 0) return;
  const byUnit = scoresByUnit(rows.map(badgeScore));
  const before = await storedBadges(c, [...byUnit.keys()]);
  await updateBadges(c, new Map([...before.keys()].map((id) => [id, mergeBadges(before.get(id) ?? [], byUnit.get(id) ?? [])])));
}
