import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Logger } from '../../runtime/logging/index.ts';
import { DEFAULT_PROJECT } from './conditions.ts';
import { BADGES_BACKFILL } from './duckdb-badges.ts';
import { dropPrimaryKeys } from './duckdb-drop-keys.ts';
import { inTransaction } from './duckdb-sql.ts';
import { SCORE_FIELDS, UNIT_COLUMNS } from './rows.ts';
import { UNIT_METRIC_COLUMNS } from './unit-metric-columns.ts';

// Values are bound ($1, …) or appended, never spliced; the only text in SQL is constant names.
export const q = (name: string): string => `"${name}"`;

type DuckType = 'VARCHAR' | 'DOUBLE' | 'BIGINT' | 'INTEGER' | 'BOOLEAN';
export interface Column {
  name: string;
  type: DuckType;
  nullable: boolean;
}

const c = (name: string, type: DuckType, nullable = false): Column => ({ name, type, nullable });

const SCORE_COLUMNS: readonly Column[] = [
  c('schema_version', 'INTEGER'),
  c('unit_id', 'VARCHAR'),
  c('unit_kind', 'VARCHAR'),
  c('check', 'VARCHAR'),
  c('check_version', 'VARCHAR'),
  c('status', 'VARCHAR'),
  c('value', 'DOUBLE', true),
  c('passed', 'BOOLEAN', true),
  c('explanation', 'VARCHAR'),
  c('method', 'VARCHAR'),
  c('error', 'VARCHAR', true),
  c('judge_model', 'VARCHAR', true),
  c('latency_ms', 'DOUBLE'),
  c('input_tokens', 'BIGINT'),
  c('output_tokens', 'BIGINT'),
  c('cost_usd', 'DOUBLE'),
  c('agent_name', 'VARCHAR', true),
  c('agent_version', 'VARCHAR', true),
  c('environment', 'VARCHAR', true),
  c('service', 'VARCHAR', true),
  c('unit_end_time_ms', 'DOUBLE'),
  c('created_at_ms', 'BIGINT'),
  c('project', 'VARCHAR'),
  c('unit_revision', 'INTEGER'),
];

const UNIT_COLUMN_TYPES: readonly Column[] = [
  c('unit_id', 'VARCHAR'),
  c('kind', 'VARCHAR'),
  c('agent_name', 'VARCHAR', true),
  c('agent_version', 'VARCHAR', true),
  c('environment', 'VARCHAR', true),
  c('service', 'VARCHAR', true),
  c('conversation_id', 'VARCHAR', true),
  c('model', 'VARCHAR', true),
  c('start_time_ms', 'BIGINT'),
  c('end_time_ms', 'BIGINT'),
  c('span_count', 'BIGINT'),
  c('truncated', 'BOOLEAN'),
  c('assembled_at_ms', 'BIGINT'),
  c('unit_json', 'VARCHAR'),
  c('project', 'VARCHAR'),
  // Step figures; null for units stored before them.
  ...UNIT_METRIC_COLUMNS.map((name) => c(name, name === 'errored' ? 'INTEGER' : 'DOUBLE', true)),
  c('step_figures', 'VARCHAR', true),
  c('search_text', 'VARCHAR', true),
];

if (SCORE_COLUMNS.map((x) => x.name).join() !== SCORE_FIELDS.join() || UNIT_COLUMN_TYPES.map((x) => x.name).join() !== UNIT_COLUMNS.join()) {
  throw new Error('duckdb columns out of step with the row shapes in rows.ts');
}

const columnDefs = (cols: readonly Column[]): string => cols.map((x) => `  ${q(x.name)} ${x.type}${x.nullable ? '' : ' NOT NULL'}`).join(',\n');

// `scores` and `units` hold the latest revision of every unit (what every read but the history
// sees); `score_revisions` and `unit_revisions` keep every revision. Their keys (unit_id;
// unit_id, revision; unit_id, check, check_version; and with unit_revision) are kept unique by
// the writes (duckdb-writes.ts), not by a PRIMARY KEY: DuckDB keeps a key's ART index in memory,
// outside what memory_limit can evict, and it grew with every stored unit (~2 KB each; writes
// crawled once it no longer fit the limit). Files written with the keys are rebuilt without them.
const SCORES_DDL = `CREATE TABLE IF NOT EXISTS scores (
${columnDefs(SCORE_COLUMNS)},
  created_at TIMESTAMP NOT NULL
)`;

const SCORE_REVISIONS_DDL = `CREATE TABLE IF NOT EXISTS score_revisions (
${columnDefs(SCORE_COLUMNS)}
)`;

const UNITS_DDL = `CREATE TABLE IF NOT EXISTS units (
${columnDefs(UNIT_COLUMN_TYPES)},
  revision INTEGER DEFAULT 1,
  score_badges VARCHAR
)`;

const UNIT_REVISIONS_DDL = `CREATE TABLE IF NOT EXISTS unit_revisions (
  unit_id VARCHAR NOT NULL,
  project VARCHAR NOT NULL,
  revision INTEGER NOT NULL,
  content_hash VARCHAR NOT NULL,
  model_output_hash VARCHAR NOT NULL,
  messages_hash VARCHAR NOT NULL,
  span_count BIGINT NOT NULL,
  assembled_at_ms BIGINT NOT NULL,
  stored_at_ms BIGINT NOT NULL,
  unit_json VARCHAR NOT NULL
)`;

const DOCS_DDL = `CREATE TABLE IF NOT EXISTS docs (
  kind VARCHAR NOT NULL,
  project VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  body VARCHAR NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (kind, project, id)
)`;

// Files written before projects existed: the column arrives with its default.
const ADD_PROJECT_COLUMNS = [
  `ALTER TABLE scores ADD COLUMN IF NOT EXISTS project VARCHAR DEFAULT '${DEFAULT_PROJECT}'`,
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS project VARCHAR DEFAULT '${DEFAULT_PROJECT}'`,
  // Files written before revisions: what they hold is revision 1.
  `ALTER TABLE scores ADD COLUMN IF NOT EXISTS unit_revision INTEGER DEFAULT 1`,
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS revision INTEGER DEFAULT 1`,
  // Files written before step figures: their units have none.
  ...UNIT_METRIC_COLUMNS.map((name) => `ALTER TABLE units ADD COLUMN IF NOT EXISTS ${name} ${name === 'errored' ? 'INTEGER' : 'DOUBLE'}`),
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS step_figures VARCHAR`,
  // The explorer's search text; filled for earlier units by SEARCH_TEXT_BACKFILL.
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS search_text VARCHAR`,
  // The explorer's score badges (duckdb-badges.ts); NULL until BADGES_BACKFILL fills them.
  `ALTER TABLE units ADD COLUMN IF NOT EXISTS score_badges VARCHAR`,
];

// Units stored before the search text are searched in their lower-cased JSON (dialog and all).
const SEARCH_TEXT_BACKFILL = `UPDATE units SET search_text = lower(CASE WHEN r.unit_json <> '' THEN r.unit_json ELSE units.unit_json END)
FROM unit_revisions r WHERE units.search_text IS NULL AND r.unit_id = units.unit_id AND r.revision = units.revision`;

// Run once, when the history tables are created in a file that already holds units and scores:
// they become revision 1 (their hashes are computed from the JSON when first needed).
const COPY_LEGACY = [
  `INSERT INTO unit_revisions SELECT unit_id, project, 1, '', '', '', span_count, assembled_at_ms, assembled_at_ms, unit_json FROM units`,
  `INSERT INTO score_revisions (${SCORE_FIELDS.map(q).join(', ')}) SELECT ${SCORE_FIELDS.map(q).join(', ')} FROM scores`,
];

// Per-row INSERT statements cost tens of ms each (primary-key checks per statement); a batch is
// appended into a per-connection staging table and moved with one INSERT … SELECT instead. Staging
// columns hold what JavaScript has (text, double, boolean); the INSERT casts to the real types.
const stagingType = (t: DuckType): DuckType => (t === 'BIGINT' || t === 'INTEGER' ? 'DOUBLE' : t);
const stagingDdl = (table: string, cols: readonly Column[]): string =>
  `CREATE TEMP TABLE IF NOT EXISTS ${table} (${cols.map((x) => `${q(x.name)} ${stagingType(x.type)}`).join(', ')})`;
export const SCORES_STAGING = 'scores_staging';
// A staged score: its row, and whether it goes to `scores` (of its unit's latest revision).
export const SCORE_STAGING_COLUMNS = [...SCORE_FIELDS, 'to_latest'] as const;
const SCORE_STAGING_TYPES: readonly Column[] = [...SCORE_COLUMNS, c('to_latest', 'BOOLEAN', true)];
export const UNITS_STAGING = 'units_staging';

// A staged unit: its row, its revision and hashes, and whether it is the unit's latest revision.
export const UNIT_STAGING_COLUMNS: readonly Column[] = [
  ...UNIT_COLUMN_TYPES,
  c('revision', 'INTEGER'),
  c('content_hash', 'VARCHAR'),
  c('model_output_hash', 'VARCHAR'),
  c('messages_hash', 'VARCHAR'),
  c('stored_at_ms', 'BIGINT'),
  c('is_latest', 'BOOLEAN'),
  c('fresh', 'BOOLEAN'),
  c('score_badges', 'VARCHAR', true),
];
export type UnitStagingRow = Record<(typeof UNIT_STAGING_COLUMNS)[number]['name'], DuckDBValue>;

/**
 * Creates the tables and brings a file of an earlier version up to date: project and revision
 * columns, the history tables (what a file holds becomes revision 1), and this connection's staging tables.
 */
export async function migrateDuckDb(c: DuckDBConnection, log: Logger): Promise<void> {
  await c.run(UNITS_DDL);
  await c.run(SCORES_DDL);
  await c.run(DOCS_DDL);
  for (const statement of ADD_PROJECT_COLUMNS) await c.run(statement);
  const history = (await c.runAndReadAll(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'unit_revisions' AND NOT temporary`)).getRowObjectsJS();
  const copyLegacy = Number(history[0]?.n ?? 0) === 0;
  await inTransaction(c, log, async () => {
    await c.run(UNIT_REVISIONS_DDL);
    await c.run(SCORE_REVISIONS_DDL);
    if (copyLegacy) for (const statement of COPY_LEGACY) await c.run(statement);
  });
  await c.run(SEARCH_TEXT_BACKFILL);
  for (const statement of BADGES_BACKFILL) await c.run(statement);
  await dropPrimaryKeys(c, log, { units: UNITS_DDL, scores: SCORES_DDL, unit_revisions: UNIT_REVISIONS_DDL, score_revisions: SCORE_REVISIONS_DDL });
  // Staging tables of earlier versions (temporary, so only within this connection) are rebuilt.
  await c.run(`DROP TABLE IF EXISTS temp.${UNITS_STAGING}`);
  await c.run(`DROP TABLE IF EXISTS temp.${SCORES_STAGING}`);
  await c.run(stagingDdl(UNITS_STAGING, UNIT_STAGING_COLUMNS));
  await c.run(stagingDdl(SCORES_STAGING, SCORE_STAGING_TYPES));
}
