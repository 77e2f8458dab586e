import type { Score, Unit } from '../schemas/index.ts';
import type { Component } from '../lifecycle/index.ts';

export interface ScoreQuery {
  check?: string;
  unitId?: string;
  /** Inclusive lower bound on `created_at_ms`. */
  fromMs?: number;
  /** Exclusive upper bound on `created_at_ms`. */
  toMs?: number;
  /** Default 100, at most 10,000. */
  limit?: number;
}

/**
 * Where units and scores are kept: ClickHouse in production, DuckDB in embedded mode.
 * Writes are idempotent: a unit by `unit_id` (last assembled wins), a score by
 * (unit_id, check, check_version) (last written wins), so a replay leaves one row, not two.
 */
export interface Store extends Component {
  readonly kind: 'clickhouse' | 'duckdb';
  /** Creates the database and tables if missing. Called by `start()`. */
  migrate(): Promise<void>;
  writeUnits(units: readonly Unit[]): Promise<void>;
  writeScores(scores: readonly Score[]): Promise<void>;
  getUnit(unitId: string): Promise<Unit | null>;
  /** Newest first by `created_at_ms`, one row per (unit_id, check, check_version). */
  queryScores(query: ScoreQuery): Promise<Score[]>;
}
