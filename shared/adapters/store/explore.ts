import { PermanentError } from '../../runtime/errors/index.ts';
import type { Unit } from '../../contracts/schemas/index.ts';
import type { UnitSummary } from './contract.ts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, timeBounds, timeConditions, type Condition } from './conditions.ts';
import { toWellFormed } from './sql-quote.ts';

// The explorer's listing: units of a project, filtered, searched and sorted, a page at
// a time. The meaning of every filter is decided here once; each store renders the result
// (explore-duckdb.ts binds values, explore-clickhouse.ts quotes them).

export const EXPLORE_SORTS = ['time', 'cost', 'duration', 'tokens'] as const;
export type ExploreSort = (typeof EXPLORE_SORTS)[number];
export const EXPLORE_VERDICTS = ['pass', 'fail', 'error', 'not_run'] as const;
export type ExploreVerdict = (typeof EXPLORE_VERDICTS)[number];

/** Keyset position after the last row of a page: its sort key and unit id. */
interface ExploreCursor {
  key: number;
  unit_id: string;
}

export interface ExploreQuery {
  /** Always set by the API: a query never crosses projects. */
  project: string;
  kind?: 'trace' | 'session' | 'eval';
  agent?: string;
  agentVersion?: string;
  environment?: string;
  service?: string;
  conversationId?: string;
  /** The unit's model, or a model any of its LLM calls used. */
  model?: string;
  /** A tool the run executed. */
  tool?: string;
  /** `error`: some span of the run ended in error; `ok`: none did (units stored before step figures match neither). */
  status?: 'ok' | 'error';
  /** Units scored by this check; with `verdict`, only those whose score has it. */
  check?: string;
  verdict?: ExploreVerdict;
  /** Bounds on the end time: inclusive, exclusive. */
  fromMs?: number;
  toMs?: number;
  /** Inclusive ranges on the run's cost (USD) and duration (ms). */
  costMin?: number;
  costMax?: number;
  durationMinMs?: number;
  durationMaxMs?: number;
  /** Free text: every word must occur (case-insensitive) in the dialog, tool arguments or results. */
  text?: string;
  sort?: ExploreSort;
  order?: 'desc' | 'asc';
  /** Default 100, at most 10,000. */
  limit?: number;
  after?: ExploreCursor;
}

/** A score as a badge in a row. */
export interface ScoreBadge {
  check: string;
  check_version: string;
  status: string;
  passed: boolean | null;
  value: number | null;
}

export interface ExploreRow extends UnitSummary {
  duration_ms: number | null;
  cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  tool_calls: number | null;
  errored: boolean | null;
  /** The value the page is sorted by (what a cursor holds). */
  sort_key: number;
  scores: ScoreBadge[];
}

/** What the stores render: plain conditions, plus the explorer's own text, tool, model and check filters. */
export interface NormalizedExplore {
  empty: boolean;
  project: string;
  conditions: Condition[];
  /** Lower-cased words, each a substring of `search_text`. */
  words: string[];
  /** `\ntool\t<name>\t`: a substring of `'\n' || step_figures`. */
  toolLine: string | null;
  model: { name: string; line: string } | null;
  check: { name: string; verdict: ExploreVerdict | null } | null;
  sort: ExploreSort;
  order: 'desc' | 'asc';
  after: ExploreCursor | null;
  limit: number;
}

export const MAX_SEARCH_WORDS = 8;
/** Characters of a unit's dialog kept for search: beyond it a long run is not searched. */
const SEARCH_TEXT_CHARS = 65_536;
export const EXPLORE_ROW_COLUMNS = ['duration_ms', 'cost_usd', 'input_tokens', 'output_tokens', 'tool_calls', 'errored'] as const;

const str = (name: string, v: unknown): string => {
  if (typeof v !== 'string') throw new PermanentError(`${name} must be a string`);
  return toWellFormed(v);
};
const num = (name: string, v: unknown): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new PermanentError(`${name} must be a finite number`);
  return v;
};
const eq = (column: string, value: string | number): Condition => ({ kind: 'cmp', column, op: '=', value });
// Step names are cleaned the way stepFigures writes them.
const stepName = (s: string): string => s.replace(/[\t\n\r]/g, ' ');

export function normalizeExplore(qy: ExploreQuery): NormalizedExplore {
  const limit = qy.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new PermanentError(`limit must be a positive integer, got ${String(limit)}`);
  const bounds = timeBounds(qy.fromMs, qy.toMs);
  const conditions: Condition[] = [eq('project', str('project', qy.project)), ...timeConditions('end_time_ms', bounds)];
  if (qy.kind !== undefined) conditions.push(eq('kind', str('kind', qy.kind)));
  const textOrNull = (column: string, name: string, v: string | undefined): void => {
    if (v === undefined) return;
    const s = str(name, v);
    conditions.push(s === '' ? { kind: 'null', column } : eq(column, s));
  };
  textOrNull('agent_name', 'agent', qy.agent);
  textOrNull('agent_version', 'agentVersion', qy.agentVersion);
  textOrNull('environment', 'environment', qy.environment);
  textOrNull('service', 'service', qy.service);
  if (qy.conversationId !== undefined) conditions.push(eq('conversation_id', str('conversationId', qy.conversationId)));
  if (qy.status !== undefined) conditions.push(eq('errored', qy.status === 'error' ? 1 : 0));
  // Ranges: >= min, and "not above max" as < the next representable value is avoided: `max` is inclusive via NOT (x > max).
  const range = (column: string, name: string, min: number | undefined, max: number | undefined): void => {
    if (min !== undefined) conditions.push({ kind: 'cmp', column, op: '>=', value: num(name, min) });
    if (max !== undefined) conditions.push({ kind: 'or', parts: [{ kind: 'cmp', column, op: '<', value: num(name, max) }, eq(column, num(name, max))] });
  };
  range('cost_usd', 'costMin/costMax', qy.costMin, qy.costMax);
  range('duration_ms', 'durationMin/durationMax', qy.durationMinMs, qy.durationMaxMs);
  const words = qy.text === undefined ? [] : [...new Set(str('text', qy.text).toLowerCase().split(/\s+/).filter((w) => w !== ''))];
  if (words.length > MAX_SEARCH_WORDS) throw new PermanentError(`text has ${words.length} words; at most ${MAX_SEARCH_WORDS}`);
  const sort = qy.sort ?? 'time';
  if (!EXPLORE_SORTS.includes(sort)) throw new PermanentError(`sort must be one of ${EXPLORE_SORTS.join(', ')}`);
  const order = qy.order ?? 'desc';
  if (order !== 'desc' && order !== 'asc') throw new PermanentError('order must be desc or asc');
  if (qy.verdict !== undefined && !EXPLORE_VERDICTS.includes(qy.verdict)) throw new PermanentError(`verdict must be one of ${EXPLORE_VERDICTS.join(', ')}`);
  if (qy.verdict !== undefined && qy.check === undefined) throw new PermanentError('verdict needs a check');
  const after = qy.after === undefined ? null : { key: num('cursor key', qy.after.key), unit_id: str('cursor unit_id', qy.after.unit_id) };
  return {
    empty: bounds.empty,
    project: str('project', qy.project),
    conditions,
    words,
    toolLine: qy.tool === undefined ? null : `\ntool\t${stepName(str('tool', qy.tool))}\t`,
    model: qy.model === undefined ? null : { name: str('model', qy.model), line: `\nllm\t${stepName(str('model', qy.model))}\t` },
    check: qy.check === undefined ? null : { name: str('check', qy.check), verdict: qy.verdict ?? null },
    sort,
    order,
    after,
    limit: Math.min(limit, MAX_LIST_LIMIT),
  };
}

function collect(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) collect(x, out);
}

/**
 * What the free-text search reads of a unit: every string in its dialog (messages, tool call
 * arguments, tool results) and its output, lower-cased, one per line, at most SEARCH_TEXT_CHARS.
 */
export function searchText(u: Unit): string {
  const parts: string[] = [];
  collect(u.message_history, parts);
  if (u.model_output !== null) parts.push(u.model_output);
  const whole = parts.join('\n').toLowerCase();
  return toWellFormed(whole.length > SEARCH_TEXT_CHARS ? whole.slice(0, SEARCH_TEXT_CHARS) : whole);
}

function numOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : (v as number);
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** The explorer's columns of a row (both drivers' types), beside its summary. */
export function exploreFields(r: Record<string, unknown>): Omit<ExploreRow, keyof UnitSummary | 'scores'> {
  const errored = numOrNull(r.errored);
  return {
    duration_ms: numOrNull(r.duration_ms),
    cost_usd: numOrNull(r.cost_usd),
    input_tokens: numOrNull(r.input_tokens),
    output_tokens: numOrNull(r.output_tokens),
    tool_calls: numOrNull(r.tool_calls),
    errored: errored === null ? null : errored === 1,
    sort_key: numOrNull(r.sort_key) ?? 0,
  };
}

export function rowToBadge(r: Record<string, unknown>): ScoreBadge {
  const passed = r.passed === null || r.passed === undefined ? null : r.passed === true || Number(r.passed) === 1;
  return { check: String(r.check), check_version: String(r.check_version), status: String(r.status), passed, value: numOrNull(r.value) };
}
