export type {
  AggregateQuery,
  
  QueryStore,
  ScoreAggregate,
  
  ScoreFilters,
  ScoreQuery,
  ScoredUnit,
  
  UnitRevision,
  UnitWriteResult,
  Store,
  StoredDoc,
  UnitCursor,
  UnitQuery,
  UnitSummary,
  ValueCount,
} from './contract.ts';
;
export { EXPLORE_SORTS, EXPLORE_VERDICTS, MAX_SEARCH_WORDS } from './explore.ts';
export type {  ExploreQuery, ExploreRow,   ScoreBadge } from './explore.ts';
export { MAX_DOC_BYTES } from './monitoring-rows.ts';
export { createClickHouseStore } from './clickhouse-store.ts';
;
export { classifyClickHouseError } from './clickhouse-errors.ts';
export { createDuckDbStore } from './duckdb-store.ts';
;
export {
  quoteString,
  quoteNumber,
  
  
  quoteArray,
  
  
  sql,
  sqlIdentifier,
  
  
} from './sql-quote.ts';
;
export type { RetentionCut } from './retention.ts';
export { interpolatedQuantile, METRIC_GROUPS, UNIT_METRICS } from './unit-metrics.ts';
export { STEP_KINDS, STEP_METRICS } from './step-metrics.ts';
;
export type { MetricGroup, MetricValueCount,  UnitMetric,  UnitMetricRow } from './unit-metrics.ts';
