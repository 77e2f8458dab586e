import { PermanentError } from '../../runtime/errors/index.ts';
import type { AggregateQuery, ScoreCursor, ScoreFilters, UnitCursor, UnitQuery } from './contract.ts';
import { toWellFormed } from './sql-quote.ts';

// Filters as a tiny backend-neutral tree, so that the meaning of each API filter is decided once and
// each store only renders it (DuckDB binds values, ClickHouse 18.16 quotes them). Column names are
// constants from this file, never input.

type CondValue = string | number | boolean;
export type Condition =
  | { kind: 'cmp'; column: string; op: '=' | '>' | '>=' | '<'; value: CondValue }
  | { kind: 'in'; column: string; values: readonly string[] }
  | { kind: 'null'; column: string }
  | { kind: 'or' | 'and'; parts: readonly Condition[] };

export const DEFAULT_PROJECT = 'default';
export const MAX_LIST_LIMIT = 10_000;
export const DEFAULT_LIST_LIMIT = 100;

const eq = (column: string, value: CondValue): Condition => ({ kind: 'cmp', column, op: '=', value });

function text(name: string, v: unknown): string {
  if (typeof v !== 'string') throw new PermanentError(`${name} must be a string`);
  return toWellFormed(v);
}

/**
 * The filter on a nullable text column: the value, or for an empty string the rows without one
 * (e.g. `agent_version=` selects units that carry no version).
 */
function textOrNull(column: string, name: string, v: unknown): Condition {
  const s = text(name, v);
  return s === '' ? { kind: 'null', column } : eq(column, s);
}

/** One unit's revisions (one revision when given), within a project when given. */
export function revisionConditions(unitId: unknown, project: string | undefined, revision: number | undefined): Condition[] {
  const out: Condition[] = [eq('unit_id', text('unitId', unitId))];
  if (project !== undefined) out.push(eq('project', text('project', project)));
  if (revision !== undefined) {
    if (!Number.isSafeInteger(revision) || revision < 1) throw new PermanentError('revision must be a positive integer');
    out.push(eq('revision', revision));
  }
  return out;
}

/** Conditions of the score filters; every given field must match. */
export function scoreFilterConditions(f: ScoreFilters): Condition[] {
  const out: Condition[] = [];
  if (f.project !== undefined) out.push(eq('project', text('project', f.project)));
  if (f.check !== undefined) out.push(eq('check', text('check', f.check)));
  if (f.checkVersion !== undefined) out.push(eq('check_version', text('checkVersion', f.checkVersion)));
  if (f.agent !== undefined) out.push(textOrNull('agent_name', 'agent', f.agent));
  if (f.agentVersion !== undefined) out.push(textOrNull('agent_version', 'agentVersion', f.agentVersion));
  if (f.environment !== undefined) out.push(textOrNull('environment', 'environment', f.environment));
  if (f.service !== undefined) out.push(textOrNull('service', 'service', f.service));
  if (f.unitKind !== undefined) out.push(eq('unit_kind', text('unitKind', f.unitKind)));
  if (f.status !== undefined) out.push(eq('status', text('status', f.status)));
  if (f.method !== undefined) out.push(eq('method', text('method', f.method)));
  if (f.passed !== undefined) {
    if (typeof f.passed !== 'boolean') throw new PermanentError('passed must be a boolean');
    out.push(eq('passed', f.passed));
  }
  if (f.methods !== undefined) out.push({ kind: 'in', column: 'method', values: f.methods.map((m) => text('methods', m)) });
  if (f.judgeOnly === true) out.push({ kind: 'in', column: 'method', values: ['model', 'hybrid'] });
  return out;
}

export interface TimeBounds {
  fromMs: number | undefined;
  toMs: number | undefined;
  /** The bounds exclude every row: no query needed. */
  empty: boolean;
}

function finite(name: string, v: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new PermanentError(`${name} must be a finite number`);
  return v;
}

/** Integer epoch-ms bounds in (0, 2^53); a bound that cannot exclude anything is dropped. */
export function timeBounds(fromMs: number | undefined, toMs: number | undefined): TimeBounds {
  const rawFrom = finite('fromMs', fromMs);
  const rawTo = finite('toMs', toMs);
  const from = rawFrom === undefined || rawFrom <= 0 ? undefined : Math.ceil(rawFrom);
  const to = rawTo === undefined || rawTo > Number.MAX_SAFE_INTEGER ? undefined : Math.ceil(rawTo);
  const empty = (to !== undefined && to <= 0) || (from !== undefined && from > Number.MAX_SAFE_INTEGER) || (from !== undefined && to !== undefined && from >= to);
  return { fromMs: empty ? undefined : from, toMs: empty ? undefined : to, empty };
}

export function timeConditions(column: string, b: TimeBounds): Condition[] {
  const out: Condition[] = [];
  if (b.fromMs !== undefined) out.push({ kind: 'cmp', column, op: '>=', value: b.fromMs });
  if (b.toMs !== undefined) out.push({ kind: 'cmp', column, op: '<', value: b.toMs });
  return out;
}

export function listLimit(limit: number | undefined): number {
  const l = limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(l) || l < 1) throw new PermanentError(`limit must be a positive integer, got ${String(l)}`);
  return Math.min(l, MAX_LIST_LIMIT);
}

/**
 * Rows after `c` in the order (time DESC, then the key columns ascending): the keyset condition for
 * the next page. Stable under concurrent inserts of newer rows.
 */
function afterCondition(timeColumn: string, time: number, keys: readonly [string, string][]): Condition {
  if (!Number.isFinite(time)) throw new PermanentError('cursor time must be a finite number');
  // time < t OR (time = t AND (k1 > v1 OR (k1 = v1 AND (k2 > v2 OR …))))
  let tail: Condition | null = null;
  for (const [column, value] of [...keys].reverse()) {
    const gt: Condition = { kind: 'cmp', column, op: '>', value: text(column, value) };
    tail = tail ? { kind: 'or', parts: [gt, { kind: 'and', parts: [eq(column, text(column, value)), tail] }] } : gt;
  }
  const sameTime: Condition = { kind: 'and', parts: [eq(timeColumn, time), ...(tail ? [tail] : [])] };
  return { kind: 'or', parts: [{ kind: 'cmp', column: timeColumn, op: '<', value: time }, sameTime] };
}

export function scoreCursorCondition(c: ScoreCursor): Condition {
  return afterCondition('created_at_ms', c.created_at_ms, [
    ['unit_id', c.unit_id],
    ['check', c.check],
    ['check_version', c.check_version],
  ]);
}

function unitCursorCondition(c: UnitCursor): Condition {
  return afterCondition('end_time_ms', c.end_time_ms, [['unit_id', c.unit_id]]);
}

export interface NormalizedAggregateQuery {
  conditions: Condition[];
  bucketMs: number | undefined;
  empty: boolean;
}

/** Aggregates select by the unit's end time, so that a backfill does not move old runs to today. */
export function normalizeAggregateQuery(q: AggregateQuery): NormalizedAggregateQuery {
  const bounds = timeBounds(q.fromMs, q.toMs);
  if (q.bucketMs !== undefined && (!Number.isSafeInteger(q.bucketMs) || q.bucketMs < 1000)) {
    throw new PermanentError(`bucketMs must be an integer of at least 1000, got ${String(q.bucketMs)}`);
  }
  return {
    conditions: [...scoreFilterConditions(q), ...timeConditions('unit_end_time_ms', bounds)],
    bucketMs: q.bucketMs,
    empty: bounds.empty,
  };
}

export interface NormalizedUnitQuery {
  conditions: Condition[];
  limit: number;
  empty: boolean;
}

export function normalizeUnitQuery(q: UnitQuery): NormalizedUnitQuery {
  const bounds = timeBounds(q.fromMs, q.toMs);
  const conditions: Condition[] = [];
  if (q.project !== undefined) conditions.push(eq('project', text('project', q.project)));
  if (q.agent !== undefined) conditions.push(textOrNull('agent_name', 'agent', q.agent));
  if (q.agentVersion !== undefined) conditions.push(textOrNull('agent_version', 'agentVersion', q.agentVersion));
  if (q.environment !== undefined) conditions.push(textOrNull('environment', 'environment', q.environment));
  if (q.service !== undefined) conditions.push(textOrNull('service', 'service', q.service));
  if (q.unitKind !== undefined) conditions.push(eq('kind', text('unitKind', q.unitKind)));
  if (q.conversationId !== undefined) conditions.push(textOrNull('conversation_id', 'conversationId', q.conversationId));
  conditions.push(...timeConditions('end_time_ms', bounds));
  if (q.after !== undefined) conditions.push(unitCursorCondition(q.after));
  return { conditions, limit: listLimit(q.limit), empty: bounds.empty };
}
