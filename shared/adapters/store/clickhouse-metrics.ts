import type { SqlFragment } from './sql-quote.ts';
import { joinSql, sql, sqlIdentifier } from './sql-quote.ts';
import { where } from './clickhouse-filters.ts';
import type { NormalizedMetricQuery, normalizeMetricValuesQuery, UnitMetric } from './unit-metrics.ts';
import type { NormalizedStepQuery } from './step-metrics.ts';

// Unit metrics on ClickHouse (18.16 and current). 18.16 has no quantile with DuckDB's definition
// (`quantileExact` takes the element at ⌊q·n⌋, no interpolation), so the percentiles are
// interpolated from the sorted values (`arraySort(groupArray(v))`, NULLs skipped) with the formula of
// DuckDB's `quantile_cont`: both stores then give the same figures (test/integration/store).

const EXPRESSIONS: Readonly<Record<UnitMetric, SqlFragment>> = {
  duration_ms: sql`duration_ms`,
  cost_usd: sql`cost_usd`,
  tokens: sql`input_tokens + output_tokens`,
  input_tokens: sql`input_tokens`,
  output_tokens: sql`output_tokens`,
  llm_calls: sql`llm_calls`,
  tool_calls: sql`tool_calls`,
  tool_errors: sql`tool_errors`,
  error_rate: sql`errored`,
  volume: sql`1`,
};

/** (1 − d)·x[⌊h⌋] + d·x[⌊h⌋+1], d = h − ⌊h⌋, h = (n − 1)·q over the 1-based array `sorted` (DuckDB's order of operations). */
function quantile(level: '0.5' | '0.95' | '0.99'): SqlFragment {
  const q = level === '0.5' ? sql`0.5` : level === '0.95' ? sql`0.95` : sql`0.99`;
  const h = sql`((n - 1) * ${q})`;
  const lo = sql`toUInt64(floor(${h}))`;
  const d = sql`(${h} - floor(${h}))`;
  return sql`if(n = 0, NULL, arrayElement(sorted, ${lo} + 1) * (1 - ${d}) + arrayElement(sorted, least(${lo} + 2, n)) * ${d})`;
}

/** The query of `unitMetrics`: one row per bucket and group (grouped rows largest first when unbucketed). */
export function unitMetricsSql(db: SqlFragment, nq: NormalizedMetricQuery): SqlFragment {
  const bucket = nq.bucketMs === undefined ? sql`toUInt64(0)` : sql`intDiv(end_time_ms, ${nq.bucketMs}) * ${nq.bucketMs}`;
  const group = nq.groupColumn === undefined ? sql`CAST(NULL AS Nullable(String))` : sqlIdentifier(nq.groupColumn);
  const value = nq.metric === 'volume' ? sql`toNullable(toFloat64(1))` : sql`toNullable(toFloat64(${EXPRESSIONS[nq.metric]}))`;
  return metricRowsSql(sql`SELECT ${bucket} AS t, ${group} AS g, ${value} AS v FROM ${db}.units FINAL${where(nq.conditions)}`, nq);
}

/** Figures per (t, g) over rows `t, g, v` of `inner`: counts, sums, extremes and the interpolated percentiles. */
function metricRowsSql(inner: SqlFragment, nq: NormalizedMetricQuery): SqlFragment {
  const order = nq.bucketMs === undefined ? sql`units DESC, g` : sql`t, g`;
  const limit = nq.bucketMs === undefined ? nq.limit : 100_000;
  const grouped = sql`SELECT t, g, count() AS units, count(v) AS n, sum(v) AS total, sum(v * v) AS total_sq, avg(v) AS mean, min(v) AS lowest, max(v) AS highest, arraySort(groupArray(v)) AS sorted FROM (${inner}) GROUP BY t, g`;
  const cols = joinSql([sql`t`, sql`g`, sql`units`, sql`n`, sql`total`, sql`total_sq`, sql`mean`, sql`lowest`, sql`highest`, sql`${quantile('0.5')} AS p50`, sql`${quantile('0.95')} AS p95`, sql`${quantile('0.99')} AS p99`], ', ');
  return sql`SELECT ${cols} FROM (${grouped}) ORDER BY ${order} LIMIT ${limit}`;
}

/** The query of `metricValues`: distinct rounded values and their unit counts, smallest first (half up, as DuckDB: ClickHouse's round() takes floats' halves to even). */
export function metricValuesSql(db: SqlFragment, nq: ReturnType<typeof normalizeMetricValuesQuery>): SqlFragment {
  const inner = sql`SELECT toNullable(toFloat64(${EXPRESSIONS[nq.metric]})) AS x FROM ${db}.units FINAL${where(nq.conditions)}`;
  const scale = 10 ** nq.digits;
  return sql`SELECT floor(assumeNotNull(x) * ${scale} + 0.5) / ${scale} AS v, count() AS c FROM (${inner}) WHERE isNotNull(x) GROUP BY v ORDER BY v LIMIT ${nq.maxValues}`;
}

/**
 * The query of `stepMetrics`: the units' step lines as rows (ARRAY JOIN over the split text, 18.16
 * has no JSON arrays), their fields split by tab, then the same figures as unitMetrics per bucket
 * and tool or model name. The unit filters apply to the units; kind and name to the steps.
 */
export function stepMetricsSql(db: SqlFragment, nq: NormalizedStepQuery): SqlFragment {
  const bucket = nq.bucketMs === undefined ? sql`toUInt64(0)` : sql`intDiv(end_time_ms, ${nq.bucketMs}) * ${nq.bucketMs}`;
  const value = nq.field === 0 ? sql`toNullable(toFloat64(1))` : sql`toFloat64OrNull(arrayElement(f, ${nq.field}))`;
  const lines = sql`SELECT ${bucket} AS t, splitByChar('\t', line) AS f FROM ${db}.units FINAL ARRAY JOIN splitByChar('\n', step_figures) AS line${where(nq.conditions)}`;
  const steps = sql`SELECT t, arrayElement(f, 1) AS step_kind, arrayElement(f, 2) AS step_name, ${value} AS v FROM (${lines})`;
  const group = nq.groupColumn === undefined ? sql`CAST(NULL AS Nullable(String))` : sql`toNullable(step_name)`;
  const name = nq.name === undefined ? sql`` : sql` AND step_name = ${nq.name}`;
  return metricRowsSql(sql`SELECT t, ${group} AS g, v FROM (${steps}) WHERE step_kind = ${nq.kind}${name}`, nq);
}
