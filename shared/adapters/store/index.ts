export type {
  AggregateQuery,
  DocQuery,
  QueryStore,
  ScoreAggregate,
  ScoreCursor,
  ScoreFilters,
  ScoreQuery,
  ScoredUnit,
  StoredUnitRevision,
  UnitRevision,
  UnitWriteResult,
  Store,
  StoredDoc,
  UnitCursor,
  UnitQuery,
  UnitSummary,
  ValueCount,
} from './contract.ts';
export { DEFAULT_PROJECT } from './conditions.ts';
export { EXPLORE_SORTS, EXPLORE_VERDICTS, MAX_SEARCH_WORDS } from './explore.ts';
export type { ExploreCursor, ExploreQuery, ExploreRow, ExploreSort, ExploreVerdict, ScoreBadge } from './explore.ts';
export { MAX_DOC_BYTES } from './monitoring-rows.ts';
export { createClickHouseStore } from './clickhouse-store.ts';
export type { ClickHouseStoreOptions } from './clickhouse-store.ts';
export { classifyClickHouseError } from './clickhouse-errors.ts';
export { createDuckDbStore } from './duckdb-store.ts';
export type { DuckDbStoreOptions } from './duckdb-store.ts';
export {
  quoteString,
  quoteNumber,
  quoteInteger,
  quoteBoolean,
  quoteArray,
  quoteValue,
  quoteIdentifier,
  sql,
  sqlIdentifier,
  joinSql,
  toWellFormed,
} from './sql-quote.ts';
export type { SqlValue, SqlFragment } from './sql-quote.ts';
export type { RetentionCut } from './retention.ts';
export { interpolatedQuantile, METRIC_GROUPS, UNIT_METRICS } from './unit-metrics.ts';
export { STEP_KINDS, STEP_METRICS } from './step-metrics.ts';
export type { StepKind, StepMetric, StepMetricQuery } from './step-metrics.ts';
export type { MetricGroup, MetricValueCount, MetricValuesQuery, UnitMetric, UnitMetricQuery, UnitMetricRow } from './unit-metrics.ts';
