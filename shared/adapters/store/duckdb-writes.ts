import type { DuckDBAppender, DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Logger } from '../../runtime/logging/index.ts';
import type { UnitRevision } from './contract.ts';
import { SCORES_STAGING, UNIT_STAGING_COLUMNS, UNITS_STAGING, q, type UnitStagingRow } from './duckdb-schema.ts';
import { SCORE_FIELDS, UNIT_COLUMNS, lastPerScoreKey, scoreToRow, type ScoreRow } from './rows.ts';
import { rowToUnitRevision } from './revisions.ts';
import type { ScoredUnitsPlan } from './scored-unit-write.ts';

const LATEST_REVISION = (alias: string): string => `(SELECT max(r.revision) FROM unit_revisions r WHERE r.unit_id = ${alias}.unit_id)`;

// Scores without a revision are of the unit's latest; every score goes to the history, and to
// `scores` only when it is of the unit's latest revision (a replay of an older one stays in history).
// (Each statement costs milliseconds: the revision lookup runs only when some score lacks one.)
export const SCORE_WRITES = (rows: readonly ScoreRow[]): string[] => {
  const cols = SCORE_FIELDS.map(q).join(', ');
  return [
    ...(rows.some((r) => r.unit_revision === null) ? [`UPDATE ${SCORES_STAGING} SET unit_revision = coalesce(${LATEST_REVISION(SCORES_STAGING)}, 1) WHERE unit_revision IS NULL`] : []),
    `INSERT OR REPLACE INTO score_revisions (${cols}) SELECT ${cols} FROM ${SCORES_STAGING}`,
    `INSERT OR REPLACE INTO scores (${cols}, created_at) SELECT ${cols}, epoch_ms(CAST(created_at_ms AS BIGINT)) FROM ${SCORES_STAGING} s WHERE s.unit_revision >= coalesce(${LATEST_REVISION('s')}, 0)`,
  ];
};

// New revisions join the history; the latest one of each unit becomes the unit. The unit's JSON
// is kept once, in its revision: `units.unit_json` is written empty (rows written before hold it
// too) and read through the revision (UNIT_JSON_OF). Written twice, the JSON was half of the bytes
// every scored unit cost DuckDB (its log and checkpoints): about a quarter of the store's CPU.
const UNIT_WRITES = (() => {
  const cols = UNIT_COLUMNS.map(q).join(', ');
  const values = UNIT_COLUMNS.map((x) => (x === 'unit_json' ? `'' AS ${q(x)}` : q(x))).join(', ');
  const updates = [...UNIT_COLUMNS.filter((x) => x !== 'unit_id'), 'revision']
    .map((x) => `${q(x)} = excluded.${q(x)}`)
    .join(', ');
  return [
    `INSERT OR IGNORE INTO unit_revisions SELECT unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, unit_json FROM ${UNITS_STAGING}`,
    `INSERT INTO units (${cols}, revision) SELECT ${values}, revision FROM ${UNITS_STAGING} WHERE is_latest ON CONFLICT (unit_id) DO UPDATE SET ${updates} WHERE excluded.revision >= units.revision`,
  ];
})();

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

/** Appends rows to a staging table, runs the statements that move them, and empties it. Inside a transaction. */
export async function moveThroughStaging<K extends string>(c: DuckDBConnection, staging: string, columns: readonly K[], rows: readonly Record<K, DuckDBValue>[], statements: readonly string[]): Promise<void> {
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
  for (const statement of statements) await c.run(statement);
  await c.run(`DELETE FROM ${staging}`);
}

/** Stored revisions of the given units (up to 1,000, one bound value each). */
export async function readRevisions(c: DuckDBConnection, unitIds: readonly string[], log: Logger): Promise<UnitRevision[]> {
  const rows = (await c.runAndReadAll(`SELECT ${REVISION_SELECT} FROM unit_revisions WHERE unit_id IN (${unitIds.map((_, j) => `$${j + 1}`).join(', ')})`, [...unitIds])).getRowObjectsJS();
  return rows.map((r) => rowToUnitRevision(r, log));
}

/** Writes a plan of `writeScoredUnits` through the staging tables. Inside the write's transaction. */
export async function writePlan(c: DuckDBConnection, plan: ScoredUnitsPlan): Promise<void> {
  // One staged row per (unit, revision): the last item of a revision carries its latest form.
  const staged = new Map<string, UnitStagingRow>();
  for (const { decision: d, row, fingerprint } of plan.accepted) {
    staged.set(JSON.stringify([d.unit_id, d.revision]), { ...row, revision: d.revision, ...fingerprint, stored_at_ms: plan.storedAtMs, is_latest: d.latest });
  }
  await moveThroughStaging(c, UNITS_STAGING, UNIT_STAGING_COLUMNS.map((x) => x.name), [...staged.values()], UNIT_WRITES);
  const scoreRows: ScoreRow[] = lastPerScoreKey(plan.scores.map(scoreToRow));
  await moveThroughStaging(c, SCORES_STAGING, SCORE_FIELDS, scoreRows, SCORE_WRITES(scoreRows));
}
