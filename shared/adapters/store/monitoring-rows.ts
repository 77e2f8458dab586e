import { PermanentError } from '../../runtime/errors/index.ts';
import type { ScoreAggregate, StoredDoc, UnitSummary, ValueCount } from './contract.ts';
import { MAX_LIST_LIMIT } from './conditions.ts';
import { UNIT_COLUMNS } from './rows.ts';
import { toWellFormed } from './sql-quote.ts';

// Row conversions of the monitoring queries, shared by both stores: drivers hand back bigints
// (DuckDB) or numbers and 0/1 (ClickHouse); both come out as the contract's plain types.

/** The units table's columns but the dialog, its search text and the assembly time: what a listing shows. */
export const UNIT_SUMMARY_COLUMNS = UNIT_COLUMNS.filter((c) => c !== 'unit_json' && c !== 'search_text' && c !== 'assembled_at_ms');

const DEFAULT_DOC_LIMIT = 1000;
/** A document body is configuration or history: anything larger is a mistake or an attack. */
/** The largest document body (as JSON) the store keeps; the API refuses bigger writes with 413. */
export const MAX_DOC_BYTES = 1_000_000;

function num(v: unknown): number {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  return 0;
}

function numOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = num(v);
  return Number.isFinite(n) ? n : null;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : str(v);
}

export function text(v: unknown): string {
  if (typeof v !== 'string') throw new PermanentError('expected a string');
  return toWellFormed(v);
}

export function finiteNumber(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new PermanentError('expected a finite number');
  return v;
}

export function docLimit(limit: number | undefined): number {
  const l = limit ?? DEFAULT_DOC_LIMIT;
  if (!Number.isSafeInteger(l) || l < 1) throw new PermanentError(`limit must be a positive integer, got ${String(l)}`);
  return Math.min(l, MAX_LIST_LIMIT);
}

export function rowToAggregate(r: Record<string, unknown>): ScoreAggregate {
  return {
    check: String(r.check),
    t: numOrNull(r.t),
    total: num(r.total),
    n: num(r.n),
    passed: num(r.passed),
    judged: num(r.judged),
    valued: num(r.valued),
    value_sum: num(r.value_sum),
    value_sq_sum: num(r.value_sq_sum),
    error_count: num(r.error_count),
    not_run_count: num(r.not_run_count),
    mean_lag_ms: numOrNull(r.mean_lag_ms),
    ...('split_agent' in r ? { agent: strOrNull(r.split_agent), agent_version: strOrNull(r.split_version) } : {}),
  };
}

/** A (check, value, count) row of `valueCounts`, whatever names the store's SQL gave its columns. */
export function rowToValueCount(check: unknown, value: unknown, count: unknown): ValueCount {
  return { check: str(check), value: num(value), count: num(count) };
}

export function rowToUnitSummary(r: Record<string, unknown>): UnitSummary {
  return {
    unit_id: String(r.unit_id),
    project: String(r.project),
    kind: String(r.kind),
    agent_name: strOrNull(r.agent_name),
    agent_version: strOrNull(r.agent_version),
    environment: strOrNull(r.environment),
    service: strOrNull(r.service),
    conversation_id: strOrNull(r.conversation_id),
    model: strOrNull(r.model),
    start_time_ms: num(r.start_time_ms),
    end_time_ms: num(r.end_time_ms),
    span_count: num(r.span_count),
    truncated: r.truncated === true || num(r.truncated) === 1,
  };
}

export interface DocRow {
  kind: string;
  project: string;
  id: string;
  body: string;
  updated_at_ms: number;
}

export function docToRow(doc: StoredDoc): DocRow {
  const body = JSON.stringify(doc.body);
  if (body === undefined) throw new PermanentError('a document body must be JSON');
  if (body.length > MAX_DOC_BYTES) throw new PermanentError(`a document body is at most ${MAX_DOC_BYTES} bytes of JSON`);
  if (!Number.isSafeInteger(doc.updated_at_ms) || doc.updated_at_ms < 0) throw new PermanentError('updated_at_ms must be a non-negative integer');
  return { kind: text(doc.kind), project: text(doc.project), id: text(doc.id), body, updated_at_ms: doc.updated_at_ms };
}

export function rowToDoc(r: Record<string, unknown>): StoredDoc {
  return { kind: String(r.kind), project: String(r.project), id: String(r.id), body: JSON.parse(String(r.body)) as unknown, updated_at_ms: num(r.updated_at_ms) };
}
