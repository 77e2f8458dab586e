import { quoteIdentifier, quoteInteger } from './sql-quote.ts';
import type { ClickHouseFeatures, SchemaOptions } from './clickhouse-schema.ts';

// The explorer's time-ordered copy of `units` on a single ClickHouse server: every row written to
// `units` (each revision's), without the JSON and the search text, ordered by (project,
// end_time_ms, unit_id). `units` is ordered by unit_id (its ReplacingMergeTree key), so "the
// newest hour of a project" was spread over every granule of it; here it is a few adjacent
// granules, which the primary key finds on any server from 18.16 (no read-in-order needed).
// The listing treats its rows as it treated those of `units`: candidates of any revision, then the
// latest row of each unit from `units` (explore-clickhouse.ts).

export const UNIT_TIMES = 'unit_times';

/** The columns the explorer's candidates read: filters, sort keys, the row's identity. */
export const UNIT_TIMES_COLUMNS = [
  'project',
  'end_time_ms',
  'unit_id',
  'assembled_at_ms',
  'write_seq',
  'kind',
  'agent_name',
  'agent_version',
  'environment',
  'service',
  'conversation_id',
  'model',
  'errored',
  'cost_usd',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'step_figures',
] as const;

export function unitTimesTableSql(features: ClickHouseFeatures, opts: SchemaOptions, table = UNIT_TIMES): string {
  const lc = (type: string): string => (features.modern ? `LowCardinality(${type})` : type);
  const ttl = opts.ttlDays === undefined || !features.modern ? '' : `\nTTL assembled_at + INTERVAL ${quoteInteger(opts.ttlDays)} DAY`;
  return `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(opts.database)}.${quoteIdentifier(table)} (
  project String,
  end_time_ms UInt64,
  unit_id String,
  assembled_at_ms UInt64,
  write_seq UInt64,
  kind ${lc('String')},
  agent_name ${lc('Nullable(String)')},
  agent_version ${lc('Nullable(String)')},
  environment ${lc('Nullable(String)')},
  service ${lc('Nullable(String)')},
  conversation_id Nullable(String),
  model ${lc('Nullable(String)')},
  errored Nullable(UInt8),
  cost_usd Nullable(Float64),
  duration_ms Nullable(Float64),
  input_tokens Nullable(Float64),
  output_tokens Nullable(Float64),
  step_figures String DEFAULT '',
  assembled_at DateTime MATERIALIZED toDateTime(intDiv(assembled_at_ms, 1000))
)
ENGINE = MergeTree()
ORDER BY (project, end_time_ms, unit_id)${ttl}`;
}

/** Copies what `units` holds into a time table (`into`): a database from before it, or a bulk load. */
export function unitTimesFillSql(database: string, into = UNIT_TIMES): string {
  const cols = UNIT_TIMES_COLUMNS.join(', ');
  return `INSERT INTO ${quoteIdentifier(database)}.${quoteIdentifier(into)} (${cols}) SELECT ${cols} FROM ${quoteIdentifier(database)}.units`;
}
