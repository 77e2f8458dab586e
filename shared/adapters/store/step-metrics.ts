import { PermanentError } from '../../runtime/errors/index.ts';
import { normalizeMetricQuery, type NormalizedMetricQuery, type UnitMetricQuery } from './unit-metrics.ts';

// Metrics of steps across units: p95 latency of the tool `search` over all its calls,
// cost and tokens per model. The steps are the units' `step_figures` text (unit-metric-columns.ts),
// split into rows in SQL (ClickHouse: ARRAY JOIN; DuckDB: unnest), filtered by the unit filters.

export const STEP_KINDS = ['tool', 'llm'] as const;
type StepKind = (typeof STEP_KINDS)[number];

/** Per step: its latency, cost and tokens (model calls), whether it failed (mean = error rate), and `calls` (1 per step). */
export const STEP_METRICS = ['latency_ms', 'cost_usd', 'tokens', 'error_rate', 'calls'] as const;
type StepMetric = (typeof STEP_METRICS)[number];

/** The 1-based field of a step line that holds the metric (stepFigures' layout); 0: the constant 1. */
const STEP_FIELD: Readonly<Record<StepMetric, number>> = { latency_ms: 3, cost_usd: 4, error_rate: 5, tokens: 6, calls: 0 };

export interface StepMetricQuery extends Omit<UnitMetricQuery, 'metric' | 'groupBy'> {
  kind: StepKind;
  metric: StepMetric;
  /** Only steps of this tool or model. */
  name?: string;
  /** One row per tool or model name (largest first when unbucketed, at most `limit`). */
  groupByName?: boolean;
}

export interface NormalizedStepQuery extends NormalizedMetricQuery {
  kind: StepKind;
  field: number;
  name: string | undefined;
}

/** Validates a step query; the returned groupColumn is `step_name` when grouped by name. */
export function normalizeStepQuery(q: StepMetricQuery): NormalizedStepQuery {
  if (!(STEP_KINDS as readonly string[]).includes(q.kind)) throw new PermanentError(`kind must be one of ${STEP_KINDS.join(', ')}`);
  if (!(STEP_METRICS as readonly string[]).includes(q.metric)) throw new PermanentError(`metric must be one of ${STEP_METRICS.join(', ')}`);
  if (q.name !== undefined && typeof q.name !== 'string') throw new PermanentError('name must be a string');
  const { kind, metric, name, groupByName, ...rest } = q;
  const nq = normalizeMetricQuery({ ...rest, metric: 'volume' });
  return { ...nq, groupColumn: groupByName === true ? 'step_name' : undefined, kind, field: STEP_FIELD[metric], name };
}
