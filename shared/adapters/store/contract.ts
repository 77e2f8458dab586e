import type { RetentionCut } from './retention.ts';
import type { MetricValueCount, MetricValuesQuery, UnitMetricQuery, UnitMetricRow } from './unit-metrics.ts';
import type { StepMetricQuery } from './step-metrics.ts';
import type { ExploreQuery, ExploreRow } from './explore.ts';
import type { Score, Unit, ScoreMethod } from '../../contracts/schemas/index.ts';
import type { Component } from '../../runtime/lifecycle/index.ts';

export interface ScoreQuery extends ScoreFilters {
  unitId?: string;
  /** Any of these units (at most MAX_IDS_PER_QUERY: send them in `idChunks`); an empty list selects nothing. */
  unitIds?: readonly string[];
  /** The scores of this revision of the unit (from the history of revisions); unset: the latest scores. */
  unitRevision?: number;
  /** Inclusive lower bound on `created_at_ms`. */
  fromMs?: number;
  /** Exclusive upper bound on `created_at_ms`. */
  toMs?: number;
  /** Bounds on the unit's end time (`unit_end_time_ms`), as the aggregates use: inclusive, exclusive. */
  endFromMs?: number;
  endToMs?: number;
  /** Default 100, at most 10,000. */
  limit?: number;
  /** The next page: rows strictly after this one in the listing order. */
  after?: ScoreCursor;
}

/**
 * Where units and scores are kept: ClickHouse in production, DuckDB in embedded mode.
 *
 * Revisions, not rewrites: every distinct content of a unit is kept as a revision (1, 2, … in the
 * order the store receives them), with the scores of each; writing a content already stored is that
 * revision again (a replay leaves one row, not two). Reads of "the unit" and of scores (listings,
 * aggregates) see the latest revision only: one unit and one score per (unit_id, check,
 * check_version). A unit id belongs to the project that stored it first; another project's unit
 * with that id is refused (see `writeScoredUnits`).
 */
export interface Store extends Component, QueryStore {
  readonly kind: 'clickhouse' | 'duckdb';
  /** Creates the database and tables if missing. Called by `start()`. */
  migrate(): Promise<void>;
  /**
   * Units with their scores, in order (a later item of the same unit is a later revision). Each
   * item's scores are stored as scores of the revision its unit became. Never throws for a refused
   * item: its result says why, and nothing of it is written.
   */
  writeScoredUnits(items: readonly ScoredUnit[]): Promise<UnitWriteResult[]>;
  /** `writeScoredUnits` without scores; throws a PermanentError naming the first refused unit (the others are written). */
  writeUnits(units: readonly Unit[]): Promise<UnitWriteResult[]>;
  /**
   * Scores of stored (or unstored: eval) units. A score without `unit_revision` belongs to the
   * unit's latest revision; one of an older revision is kept in the history only.
   */
  writeScores(scores: readonly Score[]): Promise<void>;
  /** The latest revision. With `project`, a unit of another project is not found. */
  getUnit(unitId: string, project?: string): Promise<Unit | null>;
  /**
   * `getUnit` for many ids of one project in one query (the session aggregator re-opening the
   * sessions of a batch of traces): the latest revision of each found, by id; an id not found is absent.
   */
  getUnits(unitIds: readonly string[], project: string): Promise<Map<string, Unit>>;
  /** One revision (the latest when `revision` is unset) with what the history knows of it. */
  getUnitRevision(unitId: string, project?: string, revision?: number): Promise<StoredUnitRevision | null>;
  /** Every revision of a unit, oldest first (empty when the unit is unknown in `project`). */
  listUnitRevisions(unitId: string, project?: string): Promise<UnitRevision[]>;
  /** Newest first by `created_at_ms`, one row per (unit_id, check, check_version). */
  queryScores(query: ScoreQuery): Promise<Score[]>;
  /**
   * Ids of trace and session units stored with no score at all, in id order after `afterId`, at
   * most `limit`: what a crash between a unit's write and its scores' leaves. Embedded store only
   * (the scorer's start-up sweep); on ClickHouse such a scan is too costly to run at every start.
   */
  unscoredUnitIds?(afterId: string, limit: number): Promise<string[]>;
  /**
   * A metric of units (duration, cost, tokens, calls, error rate, volume) per bucket and group over a
   * window, with its percentiles, computed in the store: what the metrics API and alert rules ask.
   */
  unitMetrics(query: UnitMetricQuery): Promise<UnitMetricRow[]>;
  /** A metric's distinct per-unit values (rounded, see METRIC_VALUE_DIGITS) with their unit counts, smallest first: compare's rank test. */
  metricValues(query: MetricValuesQuery): Promise<MetricValueCount[]>;
  /** A metric of steps (tool executions or model calls) across units, per bucket and tool or model name: `units` counts the steps. */
  stepMetrics(query: StepMetricQuery): Promise<UnitMetricRow[]>;
  /**
   * The explorer: a project's units filtered, searched and sorted (then by unit id), a
   * page after `after`, each with its latest scores as badges. See explore.ts for every filter.
   */
  exploreUnits(query: ExploreQuery): Promise<ExploreRow[]>;
  /** Bytes the store's engine holds in this process's memory (DuckDB's buffer pool); absent for a server. */
  memoryBytes?(): Promise<number>;
  /** Removes what `cut` names (retention, see retention.ts); returns once the removal is started (ClickHouse) or done (DuckDB). */
  removeOlderThan?(cut: RetentionCut): Promise<void>;
  /** Bytes on disk per table (ClickHouse: system.parts; DuckDB: the file's used blocks shared out by table size). */
  tableBytes?(): Promise<Record<string, number>>;
}

export interface ScoredUnit {
  unit: Unit;
  scores: readonly Score[];
}

/** What became of a written unit: the revision it is, or why it was refused. */
export type UnitWriteResult =
  | {
      unit_id: string;
      revision: number;
      /** A content not stored before. */
      fresh: boolean;
      /** It is (still) the latest revision. */
      latest: boolean;
    }
  | { unit_id: string; refused: string };

/** One stored revision of a unit. */
export interface UnitRevision {
  unit_id: string;
  project: string;
  revision: number;
  /** When the assembler built it, and when the store first received it (epoch ms). */
  assembled_at_ms: number;
  stored_at_ms: number;
  span_count: number;
  /** SHA-256 (hex) of the whole content, of `model_output` (as JSON) and of `message_history`. */
  content_hash: string;
  model_output_hash: string;
  messages_hash: string;
}

interface StoredUnitRevision extends UnitRevision {
  unit: Unit;
}

/** Who a score or unit belongs to, and which ones a query selects. Every field is optional; all given must match. */
export interface ScoreFilters {
  /** The project (API key scope). Unset only inside trusted code; the API always sets it. */
  project?: string;
  check?: string;
  checkVersion?: string;
  /** Matches `agent_name`. */
  agent?: string;
  agentVersion?: string;
  environment?: string;
  service?: string;
  unitKind?: 'trace' | 'session' | 'eval';
  status?: 'ok' | 'error' | 'not_run';
  passed?: boolean;
  method?: 'deterministic' | 'model' | 'hybrid' | 'code' | 'external';
  /** Only scores decided by one of these methods (compare leaves other tools' `external` scores out unless asked). */
  methods?: readonly ScoreMethod[];
  /** Only checks decided with a judge (`method` model or hybrid): for judge-health rules. */
  judgeOnly?: boolean;
}

/** Aggregates are over the unit's end time (`unit_end_time_ms`): when the agent ran, not when it was scored. */
export interface AggregateQuery extends ScoreFilters {
  /** Inclusive lower bound on `unit_end_time_ms`. */
  fromMs?: number;
  /** Exclusive upper bound on `unit_end_time_ms`. */
  toMs?: number;
  /** Group into buckets of this many ms (epoch-aligned); unset: one row per check. */
  bucketMs?: number;
  /** Also group by the unit's agent and agent version: each row then carries `agent` and `agent_version`. */
  splitByAgent?: boolean;
}

/**
 * Counts of one check (and one bucket, when bucketed), computed in the store (SQL GROUP BY),
 * one score per (unit, check, check version). Rates count only `status: "ok"` scores.
 */
export interface ScoreAggregate {
  check: string;
  /** Bucket start (epoch ms) when `bucketMs` was given, else null. */
  t: number | null;
  /** All scores, whatever their status. */
  total: number;
  /** `status: "ok"` scores. */
  n: number;
  /** `ok` scores with `passed = true`. */
  passed: number;
  /** `ok` scores with a pass/fail verdict (`passed` not null). */
  judged: number;
  /** Sum and sum of squares of `value` over `ok` scores with a value; `valued` counts them. */
  valued: number;
  value_sum: number;
  value_sq_sum: number;
  error_count: number;
  not_run_count: number;
  /** Mean of `created_at_ms - unit_end_time_ms` (ms): how far scoring trails the agent. */
  mean_lag_ms: number | null;
  /** Only with `splitByAgent`: the group's agent name and version (null: units without one). */
  agent?: string | null;
  agent_version?: string | null;
}

/** How many `ok` scores of a check have each distinct value (for rank tests on score checks). */
export interface ValueCount {
  check: string;
  value: number;
  count: number;
}

/** Keyset position after the last row of a page (opaque to callers of the API). */
export interface ScoreCursor {
  created_at_ms: number;
  unit_id: string;
  check: string;
  check_version: string;
}

export interface UnitCursor {
  end_time_ms: number;
  unit_id: string;
}

/** A unit as listed (no dialog): what a table row shows. */
export interface UnitSummary {
  unit_id: string;
  project: string;
  kind: string;
  agent_name: string | null;
  agent_version: string | null;
  environment: string | null;
  service: string | null;
  conversation_id: string | null;
  model: string | null;
  start_time_ms: number;
  end_time_ms: number;
  span_count: number;
  truncated: boolean;
}

export interface UnitQuery {
  project?: string;
  agent?: string;
  agentVersion?: string;
  environment?: string;
  service?: string;
  unitKind?: 'trace' | 'session' | 'eval';
  conversationId?: string;
  /** Bounds on `end_time_ms`: inclusive, exclusive. */
  fromMs?: number;
  toMs?: number;
  /** Default 100, at most 10,000. Newest first by end time, then unit id. */
  limit?: number;
  after?: UnitCursor;
}

/**
 * A small keyed document (alert rules, alert state, alert history, API keys, …): JSON kept by
 * (kind, project, id), last write wins; `updated_at_ms` orders versions. Low-volume
 * configuration and history, never scores.
 */
export interface StoredDoc {
  kind: string;
  project: string;
  id: string;
  body: unknown;
  updated_at_ms: number;
}

export interface DocQuery {
  kind: string;
  /** Unset: every project (the alerter evaluates all projects' rules). */
  project?: string;
  /** Newest first by `updated_at_ms`; default 1000, at most 10,000. */
  limit?: number;
  /** Only docs updated strictly before this (paging newest first). */
  beforeMs?: number;
}

/** The monitoring side of a store: aggregates, listings and small documents. */
export interface QueryStore {
  /** Counts per check (and bucket), aggregated in SQL. */
  aggregateScores(query: AggregateQuery): Promise<ScoreAggregate[]>;
  /** Distinct values of `ok` scores with their counts, per check. */
  valueCounts(query: AggregateQuery): Promise<ValueCount[]>;
  listUnits(query: UnitQuery): Promise<UnitSummary[]>;
  putDoc(doc: StoredDoc): Promise<void>;
  getDoc(kind: string, project: string, id: string): Promise<StoredDoc | null>;
  listDocs(query: DocQuery): Promise<StoredDoc[]>;
  /** Idempotent: deleting a missing doc is not an error. */
  deleteDoc(kind: string, project: string, id: string): Promise<void>;
}
