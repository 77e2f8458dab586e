import type { DuckDBValue } from '@duckdb/node-api';
import { whereClause } from './duckdb-sql.ts';
import { metricExpression, type NormalizedMetricQuery, type normalizeMetricValuesQuery } from './unit-metrics.ts';
import type { NormalizedStepQuery } from './step-metrics.ts';

// Unit metrics on DuckDB: percentiles with `quantile_cont` (linear interpolation between closest
// ranks; ClickHouse computes the same from its sorted values, see clickhouse-metrics.ts).

/** The query of `unitMetrics` and its bound values. Column names and expressions are constants. */
export function unitMetricsSql(nq: NormalizedMetricQuery): { sql: string; values: DuckDBValue[] } {
  const w = whereClause(nq.conditions);
  // bucketMs is a validated safe integer (normalizeMetricQuery), so it is written as a literal.
  const bucket = nq.bucketMs === undefined ? '0' : `(end_time_ms // ${nq.bucketMs}) * ${nq.bucketMs}`;
  const group = nq.groupColumn === undefined ? 'CAST(NULL AS VARCHAR)' : `"${nq.groupColumn}"`;
  return { sql: metricRowsSql(`SELECT ${bucket} AS t, ${group} AS g, CAST(${metricExpression(nq.metric)} AS DOUBLE) AS v FROM units${w.sql}`, nq), values: w.values };
}

/** Figures per (t, g) over rows `t, g, v` of `inner`: counts, sums, extremes and quantile_cont percentiles. */
function metricRowsSql(inner: string, nq: NormalizedMetricQuery): string {
  const order = nq.bucketMs === undefined ? 'units DESC, g' : 't, g';
  const limit = nq.bucketMs === undefined ? nq.limit : 100_000;
  // One quantile_cont over the list of levels sorts each group once, not three times (half the time
  // of a p95 series over 1,000,000 units, bench/metrics.ts), with the same figures.
  const grouped = `SELECT t, g, count(*) AS units, count(v) AS n, sum(v) AS total, sum(v * v) AS total_sq, avg(v) AS mean, min(v) AS lowest, max(v) AS highest, quantile_cont(v, [0.5, 0.95, 0.99]) AS qs FROM (${inner}) GROUP BY t, g`;
  return `SELECT t, g, units, n, total, total_sq, mean, lowest, highest, qs[1] AS p50, qs[2] AS p95, qs[3] AS p99 FROM (${grouped}) ORDER BY ${order} LIMIT ${limit}`;
}

/** The query of `metricValues`: distinct values rounded half up (the same arithmetic as ClickHouse's) and their unit counts, smallest first. */
export function metricValuesSql(nq: ReturnType<typeof normalizeMetricValuesQuery>): { sql: string; values: DuckDBValue[] } {
  const w = whereClause(nq.conditions);
  const inner = `SELECT CAST(${metricExpression(nq.metric)} AS DOUBLE) AS x FROM units${w.sql}`;
  // digits and maxValues are validated integers (normalizeMetricValuesQuery), written as literals.
  const scale = 10 ** nq.digits;
  return { sql: `SELECT floor(x * ${scale} + 0.5) / ${scale} AS v, count(*) AS c FROM (${inner}) WHERE x IS NOT NULL GROUP BY 1 ORDER BY 1 LIMIT ${nq.maxValues}`, values: w.values };
}

/** The query of `stepMetrics`: the units' step lines unnested, their fields split by tab, then the figures per bucket and tool or model name. */
export function stepMetricsSql(nq: NormalizedStepQuery): { sql: string; values: DuckDBValue[] } {
  const w = whereClause(nq.conditions);
  const bucket = nq.bucketMs === undefined ? '0' : `(end_time_ms // ${nq.bucketMs}) * ${nq.bucketMs}`;
  // field is a constant of STEP_FIELD; kind and name are bound.
  const value = nq.field === 0 ? 'CAST(1 AS DOUBLE)' : `TRY_CAST(f[${nq.field}] AS DOUBLE)`;
  const lines = `SELECT ${bucket} AS t, string_split(line, chr(9)) AS f FROM units, unnest(string_split(coalesce(step_figures, ''), chr(10))) AS steps(line)${w.sql}`;
  const steps = `SELECT t, f[1] AS step_kind, f[2] AS step_name, ${value} AS v FROM (${lines})`;
  const group = nq.groupColumn === undefined ? 'CAST(NULL AS VARCHAR)' : 'step_name';
  const name = nq.name === undefined ? '' : ` AND step_name = ${w.bind(nq.name)}`;
  return { sql: metricRowsSql(`SELECT t, ${group} AS g, v FROM (${steps}) WHERE step_kind = ${w.bind(nq.kind)}${name}`, nq), values: w.values };
}
