import { UNIT_METRIC_COLUMNS } from './unit-metric-columns.ts';
import { quoteIdentifier, quoteInteger } from './sql-quote.ts';

/** What the connected server can do, decided once from `SELECT version()`. */
export interface ClickHouseFeatures {
  version: string;
  /** LowCardinality, TTL and query parameters: all present and on by default from 20.1. */
  modern: boolean;
}

// Query parameters arrived in 19.x, TTL in 19.6, LowCardinality without the experimental setting in
// 19.x as well; 20.1 is a conservative line above all of them. 18.16 is the old server we test on.
const MODERN_FROM: readonly [number, number] = [20, 1];

export function parseClickHouseVersion(version: string): ClickHouseFeatures {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  const major = m ? Number(m[1]) : 0;
  const minor = m ? Number(m[2]) : 0;
  const modern = major > MODERN_FROM[0] || (major === MODERN_FROM[0] && minor >= MODERN_FROM[1]);
  return { version: version.trim(), modern };
}

export interface SchemaOptions {
  database: string;
  /** Keep rows this many days (modern servers only); unset keeps everything. */
  ttlDays?: number | undefined;
}

/** A low-cardinality string column where the server has the type, a plain one where not. */
function lc(features: ClickHouseFeatures, type: 'String' | 'Nullable(String)'): string {
  return features.modern ? `LowCardinality(${type})` : type;
}

function ttlClause(features: ClickHouseFeatures, column: string, ttlDays: number | undefined): string {
  if (ttlDays === undefined || !features.modern) return '';
  return `\nTTL ${column} + INTERVAL ${quoteInteger(ttlDays)} DAY`;
}

export function createDatabaseSql(opts: SchemaOptions): string {
  return `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(opts.database)}`;
}

/**
 * Scores, one row per (check, unit_id, check_version) once merged; the highest `write_seq` wins.
 * Partitioned by the month of the unit's end time: every version of a key shares its unit, so it
 * lands in one partition, which is what lets `FINAL` (it merges within a partition) pick the last
 * write of every key. `created_at` is Grafana's time column for "when scored".
 */
export function scoresTableSql(features: ClickHouseFeatures, opts: SchemaOptions): string {
  const db = quoteIdentifier(opts.database);
  return `CREATE TABLE IF NOT EXISTS ${db}.scores (
  schema_version UInt8,
  unit_id String,
  unit_kind ${lc(features, 'String')},
  \`check\` ${lc(features, 'String')},
  check_version ${lc(features, 'String')},
  status ${lc(features, 'String')},
  value Nullable(Float64),
  passed Nullable(UInt8),
  explanation String,
  method ${lc(features, 'String')},
  error Nullable(String),
  judge_model ${lc(features, 'Nullable(String)')},
  latency_ms Float64,
  input_tokens UInt64,
  output_tokens UInt64,
  cost_usd Float64,
  agent_name ${lc(features, 'Nullable(String)')},
  agent_version ${lc(features, 'Nullable(String)')},
  environment ${lc(features, 'Nullable(String)')},
  service ${lc(features, 'Nullable(String)')},
  unit_end_time_ms Float64,
  created_at_ms UInt64,
  write_seq UInt64,
  project String DEFAULT 'default',
  unit_revision UInt32 DEFAULT 1,
  created_at DateTime MATERIALIZED toDateTime(intDiv(created_at_ms, 1000)),
  unit_end DateTime MATERIALIZED toDateTime(intDiv(toUInt64(greatest(unit_end_time_ms, 0)), 1000))
)
ENGINE = ReplacingMergeTree(write_seq)
PARTITION BY toYYYYMM(unit_end)
ORDER BY (\`check\`, unit_id, check_version)${ttlClause(features, 'created_at', opts.ttlDays)}`;
}

/** Units, one row per unit_id once merged; the latest `assembled_at_ms` wins. Not partitioned, so merges see every version. */
export function unitsTableSql(features: ClickHouseFeatures, opts: SchemaOptions): string {
  const db = quoteIdentifier(opts.database);
  return `CREATE TABLE IF NOT EXISTS ${db}.units (
  unit_id String,
  kind ${lc(features, 'String')},
  agent_name ${lc(features, 'Nullable(String)')},
  agent_version ${lc(features, 'Nullable(String)')},
  environment ${lc(features, 'Nullable(String)')},
  service ${lc(features, 'Nullable(String)')},
  conversation_id Nullable(String),
  model ${lc(features, 'Nullable(String)')},
  start_time_ms UInt64,
  end_time_ms UInt64,
  span_count UInt64,
  truncated UInt8,
  assembled_at_ms UInt64,
  write_seq UInt64,
  unit_json String,
  project String DEFAULT 'default',
  revision UInt32 DEFAULT 1,
  assembled_at DateTime MATERIALIZED toDateTime(intDiv(assembled_at_ms, 1000))
)
ENGINE = ReplacingMergeTree(assembled_at_ms)
ORDER BY unit_id${ttlClause(features, 'assembled_at', opts.ttlDays)}`;
}

/**
 * Small keyed documents (alert rules and state, alert history, API keys): one row per
 * (kind, project, id) once merged, the highest `write_seq` wins; a delete is a row with `deleted = 1`.
 * Reads take argMax per key, so they are right before and after merges.
 */
export function docsTableSql(opts: SchemaOptions): string {
  const db = quoteIdentifier(opts.database);
  return `CREATE TABLE IF NOT EXISTS ${db}.docs (
  kind String,
  project String,
  id String,
  body String,
  updated_at_ms UInt64,
  deleted UInt8,
  write_seq UInt64
)
ENGINE = ReplacingMergeTree(write_seq)
ORDER BY (kind, project, id)`;
}

/**
 * Every revision of every unit, one row per (unit_id, revision) once merged (a replay writes the
 * same content again). `units` keeps the latest revision of each; this keeps them all.
 */
export function unitRevisionsTableSql(opts: SchemaOptions, table = 'unit_revisions'): string {
  const db = quoteIdentifier(opts.database);
  return `CREATE TABLE IF NOT EXISTS ${db}.${quoteIdentifier(table)} (
  unit_id String,
  project String,
  revision UInt32,
  content_hash String,
  model_output_hash String,
  messages_hash String,
  span_count UInt64,
  assembled_at_ms UInt64,
  stored_at_ms UInt64,
  unit_json String,
  write_seq UInt64
)
ENGINE = ReplacingMergeTree(write_seq)
ORDER BY (unit_id, revision)`;
}

/**
 * The scores of every revision, one row per (unit_id, unit_revision, check, check_version) once
 * merged; `scores` keeps those of each unit's latest revision. Same columns as `scores`.
 */
export function scoreRevisionsTableSql(features: ClickHouseFeatures, opts: SchemaOptions, table = 'score_revisions'): string {
  const create = scoresTableSql(features, opts);
  return create
    .replace(/\.scores \(/, `.${quoteIdentifier(table)} (`)
    .replace(/ORDER BY \(`check`, unit_id, check_version\)/, 'ORDER BY (unit_id, unit_revision, `check`, check_version)');
}

/** Columns added after a table was first released (18.16 has no ADD COLUMN IF NOT EXISTS: the caller checks system.columns). */
export const ADDED_COLUMNS: readonly { table: 'scores' | 'units'; column: string; type: string }[] = [
  { table: 'scores', column: 'project', type: "String DEFAULT 'default'" },
  { table: 'units', column: 'project', type: "String DEFAULT 'default'" },
  // What a table from before revisions holds is revision 1.
  { table: 'scores', column: 'unit_revision', type: 'UInt32 DEFAULT 1' },
  { table: 'units', column: 'revision', type: 'UInt32 DEFAULT 1' },
  // Step figures; null for units stored before them.
  ...UNIT_METRIC_COLUMNS.map((column) => ({ table: 'units' as const, column, type: column === 'errored' ? 'Nullable(UInt8)' : 'Nullable(Float64)' })),
  // The steps as text (stepFigures in unit-metric-columns.ts); empty for units stored before them.
  { table: 'units', column: 'step_figures', type: "String DEFAULT ''" },
  // The explorer's search text; units stored before it are searched in their lower-cased JSON.
  { table: 'units', column: 'search_text', type: 'String DEFAULT lowerUTF8(unit_json)' },
];

// Data skipping indexes with `ADD INDEX IF NOT EXISTS` and system.data_skipping_indices, out of
// their experimental flag: 22.1 is a line above all of them (18.16 has none).
const SKIP_INDEXES_FROM: readonly [number, number] = [22, 1];

/** Whether the server takes the explorer's search index (searchIndexSql). */
export function hasSkipIndexes(features: ClickHouseFeatures): boolean {
  const m = /^(\d+)\.(\d+)/.exec(features.version);
  const [major, minor] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  return major > SKIP_INDEXES_FROM[0] || (major === SKIP_INDEXES_FROM[0] && minor >= SKIP_INDEXES_FROM[1]);
}

export const SEARCH_INDEX = 'search_text_ngrams';

/**
 * The explorer's search index: a bloom filter of the 3-grams of each granule's search_text, which
 * `search_text LIKE '%word%'` consults to skip granules that cannot hold the word (32 KB per 8,192
 * rows). Added to a table, then built for the parts already written (a background mutation).
 */
export function searchIndexSql(opts: SchemaOptions): string[] {
  const units = `${quoteIdentifier(opts.database)}.units`;
  return [`ALTER TABLE ${units} ADD INDEX IF NOT EXISTS ${SEARCH_INDEX} search_text TYPE ngrambf_v1(3, 32768, 2, 0) GRANULARITY 1`, `ALTER TABLE ${units} MATERIALIZE INDEX ${SEARCH_INDEX}`];
}

export function addColumnSql(opts: SchemaOptions, added: (typeof ADDED_COLUMNS)[number]): string {
  return `ALTER TABLE ${quoteIdentifier(opts.database)}.${added.table} ADD COLUMN ${quoteIdentifier(added.column)} ${added.type}`;
}
