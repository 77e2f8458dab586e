import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { ScoreSchema, UnitSchema, isCheckedUnit, type Score, type Unit } from '../../contracts/schemas/index.ts';
import type { ScoreQuery } from './contract.ts';
import { DEFAULT_PROJECT, listLimit, scoreCursorCondition, scoreFilterConditions, timeBounds, timeConditions, type Condition } from './conditions.ts';
import { toWellFormed } from './sql-quote.ts';
import { MAX_IDS_PER_QUERY } from './id-chunks.ts';
import { searchText } from './explore.ts';
import { stepFigures, UNIT_METRIC_COLUMNS, unitMetricValues } from './unit-metric-columns.ts';

// Row shapes shared by the ClickHouse and DuckDB stores: both keep the same columns, so the
// conversions (and their validation) live here once.

/** Every field of ScoreSchema, in schema order: the scores table has one column per field. */
export const SCORE_FIELDS = Object.keys(ScoreSchema.shape) as readonly (keyof Score)[];

export const UNIT_COLUMNS = [
  'unit_id',
  'kind',
  'agent_name',
  'agent_version',
  'environment',
  'service',
  'conversation_id',
  'model',
  'start_time_ms',
  'end_time_ms',
  'span_count',
  'truncated',
  'assembled_at_ms',
  'unit_json',
  'project',
  // Step figures: null for units stored before them (see unitMetricValues).
  ...UNIT_METRIC_COLUMNS,
  // The steps as text both stores split (stepFigures); empty for units stored before them.
  'step_figures',
  // What the explorer's free-text search reads (searchText in explore.ts).
  'search_text',
] as const;

export type ScoreRow = Record<keyof Score, string | number | boolean | null>;
export type UnitRow = Record<(typeof UNIT_COLUMNS)[number], string | number | boolean | null>;

export interface NormalizedScoreQuery {
  conditions: Condition[];
  /** True when the bounds exclude every possible row (no query needed). */
  empty: boolean;
  limit: number;
  /** Read the history of revisions (a revision was asked for), not the latest scores. */
  history: boolean;
}

/** Validates a query; a limit above the maximum is clamped, a non-positive or fractional one refused. */
export function normalizeScoreQuery(q: ScoreQuery): NormalizedScoreQuery {
  const limit = listLimit(q.limit);
  // created_at_ms is a non-negative safe integer, so x >= 1.5 is x >= 2 and x < 1.5 is x < 2; bounds
  // become integers that every backend compares exactly (no signed/unsigned or int64 overflow games).
  const bounds = timeBounds(q.fromMs, q.toMs);
  const endBounds = timeBounds(q.endFromMs, q.endToMs);
  const conditions = [...scoreFilterConditions(q), ...timeConditions('created_at_ms', bounds), ...timeConditions('unit_end_time_ms', endBounds)];
  if (q.unitId !== undefined) {
    if (typeof q.unitId !== 'string') throw new PermanentError('unitId must be a string');
    conditions.push({ kind: 'cmp', column: 'unit_id', op: '=', value: toWellFormed(q.unitId) });
  }
  let none = false;
  if (q.unitIds !== undefined) {
    const ids = unitIdList(q.unitIds);
    if (ids.length === 0) none = true;
    else conditions.push({ kind: 'in', column: 'unit_id', values: ids });
  }
  if (q.unitRevision !== undefined) {
    if (!Number.isSafeInteger(q.unitRevision) || q.unitRevision < 1) throw new PermanentError('unitRevision must be a positive integer');
    conditions.push({ kind: 'cmp', column: 'unit_revision', op: '=', value: q.unitRevision });
  }
  if (q.after !== undefined) conditions.push(scoreCursorCondition(q.after));
  return { conditions, empty: none || bounds.empty || endBounds.empty, limit, history: q.unitRevision !== undefined };
}

function unitIdList(ids: readonly unknown[]): string[] {
  if (!Array.isArray(ids)) throw new PermanentError('unitIds must be an array of strings');
  const distinct = [...new Set(ids)];
  if (distinct.length > MAX_IDS_PER_QUERY) throw new PermanentError(`unitIds names ${distinct.length} units; at most ${MAX_IDS_PER_QUERY} in one query`);
  return distinct.map((id) => {
    if (typeof id !== 'string' || id.length > 1_000) throw new PermanentError('unitIds must be strings of at most 1,000 characters');
    return toWellFormed(id);
  });
}

function issuesText(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

function epochMs(name: string, v: number): number {
  // Stored as UInt64 in ClickHouse: fractions and negatives would change on the way back.
  if (!Number.isSafeInteger(v) || v < 0) throw new PermanentError(`${name} must be a non-negative integer of epoch ms, got ${String(v)}`);
  return v;
}

function wellFormedOrNull(v: string | null): string | null {
  return v === null ? null : toWellFormed(v);
}

/**
 * A score as a row: validated (a bad score fails the batch as permanent, it is never half
 * written), strings made well-formed UTF-8. Booleans stay booleans; each store maps them.
 */
export function scoreToRow(input: Score): ScoreRow {
  const parsed = ScoreSchema.safeParse(input);
  if (!parsed.success) throw new PermanentError(`invalid score: ${issuesText(parsed.error)}`, { cause: parsed.error });
  const s = parsed.data;
  epochMs('created_at_ms', s.created_at_ms);
  const row = {} as ScoreRow;
  for (const f of SCORE_FIELDS) {
    const v = s[f];
    row[f] = typeof v === 'string' ? toWellFormed(v) : (v ?? null);
  }
  row.project = s.project === undefined ? DEFAULT_PROJECT : toWellFormed(s.project);
  // Unset: the store gives it the unit's latest revision.
  row.unit_revision = s.unit_revision ?? null;
  return row;
}

/** Nearest non-negative integer below, for the typed (filter-only) unit columns. */
function floorMs(v: number): number {
  return Math.max(0, Math.floor(v));
}

function checkedUnit(input: Unit): Unit {
  const parsed = UnitSchema.safeParse(input);
  if (!parsed.success) throw new PermanentError(`invalid unit: ${issuesText(parsed.error)}`, { cause: parsed.error });
  return parsed.data;
}

/** A unit as a row: typed columns for filters, the whole unit as JSON (which keeps it exactly). */
export function unitToRow(input: Unit): UnitRow {
  // The scorer's units were checked as they were read (parseUnit): once per unit is enough.
  const u = isCheckedUnit(input) ? input : checkedUnit(input);
  const project = u.project === undefined ? DEFAULT_PROJECT : toWellFormed(u.project);
  return {
    unit_id: toWellFormed(u.unit_id),
    kind: u.kind,
    agent_name: wellFormedOrNull(u.agent_name),
    agent_version: wellFormedOrNull(u.agent_version),
    environment: wellFormedOrNull(u.environment),
    service: wellFormedOrNull(u.service),
    conversation_id: wellFormedOrNull(u.conversation_id),
    model: wellFormedOrNull(u.model),
    start_time_ms: floorMs(u.start_time_ms),
    end_time_ms: floorMs(u.end_time_ms),
    span_count: u.span_count,
    truncated: u.truncated,
    assembled_at_ms: floorMs(u.assembled_at_ms),
    // JSON escapes lone surrogates as \udXXX (ASCII), so the unit comes back exactly as written.
    unit_json: JSON.stringify(input.project === undefined ? { ...input, project } : input),
    project,
    ...unitMetricValues(u),
    step_figures: stepFigures(u),
    search_text: searchText(u),
  };
}

/** Keeps the last score per (unit_id, unit_revision, check, check_version): later in the batch wins. */
export function lastPerScoreKey(rows: readonly ScoreRow[]): ScoreRow[] {
  const byKey = new Map<string, ScoreRow>();
  for (const r of rows) {
    const key = JSON.stringify([r.unit_id, r.unit_revision, r.check, r.check_version]);
    byKey.delete(key);
    byKey.set(key, r);
  }
  return [...byKey.values()];
}

// Database drivers hand back bigints (DuckDB BIGINT) and 0/1 (ClickHouse UInt8); anything else is
// passed through unchanged so that the schema rejects it.
function asNumber(v: unknown): unknown {
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)) return Number(v);
  return v;
}

function asBoolean(v: unknown): unknown {
  if (v === 0 || v === 0n) return false;
  if (v === 1 || v === 1n) return true;
  return v;
}

const BOOLEAN_SCORE_FIELDS = new Set<keyof Score>(['passed']);

/** A stored row back to a Score through ScoreSchema; a bad row is logged and yields null. */
export function rowToScore(row: Record<string, unknown>, log: Logger): Score | null {
  const candidate: Record<string, unknown> = {};
  for (const f of SCORE_FIELDS) {
    const v = row[f];
    candidate[f] = BOOLEAN_SCORE_FIELDS.has(f) ? asBoolean(v) : asNumber(v);
  }
  const parsed = ScoreSchema.safeParse(candidate);
  if (!parsed.success) {
    log.error({ unitId: row.unit_id, check: row.check, issues: issuesText(parsed.error) }, 'skipping invalid score row');
    return null;
  }
  return parsed.data;
}

/** The stored JSON back to a Unit through UnitSchema; a bad row is logged and yields null. */
/** Rows read back as scores; a row that does not parse is logged and skipped (see rowToScore). */
export function rowsToScores(rows: readonly Record<string, unknown>[], log: Logger): Score[] {
  return rows.flatMap((row) => rowToScore(row, log) ?? []);
}

export function jsonToUnit(unitJson: unknown, log: Logger): Unit | null {
  if (typeof unitJson !== 'string') {
    log.error({ type: typeof unitJson }, 'skipping unit row without unit_json');
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(unitJson);
  } catch (err) {
    log.error({ err }, 'skipping unit row with unparsable unit_json');
    return null;
  }
  const parsed = UnitSchema.safeParse(value);
  if (!parsed.success) {
    log.error({ issues: issuesText(parsed.error) }, 'skipping invalid unit row');
    return null;
  }
  return parsed.data;
}

/**
 * Microsecond-ish hybrid clock: strictly increasing within a process and close to wall time across
 * processes, so "last written wins" holds even when two writes share a created_at_ms.
 */
export function createWriteSequence(now: () => number = Date.now): () => number {
  let last = 0;
  return () => {
    last = Math.max(now() * 1000, last + 1);
    return last;
  };
}
