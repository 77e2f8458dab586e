// How numbers, times and links read on the pages. Times are UTC, and say so.

export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? '–' : `${(100 * x).toFixed(digits)}%`;
}

export function num(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined) return '–';
  return Number.isInteger(x) ? x.toLocaleString('en-US') : x.toFixed(digits);
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A change in percentage points, signed: "+2.5 pp", "−4.0 pp". */
export function pointsDelta(d: number | null): string {
  if (d === null) return '–';
  const v = 100 * d;
  if (Math.abs(v) < 0.05) return '±0.0 pp';
  return `${v > 0 ? '+' : '−'}${Math.abs(v).toFixed(1)} pp`;
}

export function pValue(p: number): string {
  if (p < 0.0001) return '< 0.0001';
  return p.toFixed(4);
}

/** `2026-11-21 14:05 UTC`. */
export function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A path with a query string of the given (non-empty) parameters, in the given order. */
export function withQuery(path: string, params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export const unitHref = (id: string): string => `/units/${encodeURIComponent(id)}`;
export const checkHref = (name: string, params: Record<string, string | number | undefined | null> = {}): string => withQuery(`/checks/${encodeURIComponent(name)}`, params);

/** Dollars, or "unpriced" when the cost is unknown (a model the price table does not know). */
export function usd(v: number | null | undefined, digits = 4): string {
  return v === null || v === undefined ? 'unpriced' : `$${v.toFixed(digits)}`;
}

/** A unit's cost: unknown when none of its model calls was priced; priced part plus how many were not. */
export function unitCostText(u: { cost_usd?: number; llm_calls?: number; unpriced_llm_calls?: number }): string | null {
  if (u.cost_usd === undefined) return null;
  const unpriced = u.unpriced_llm_calls ?? 0;
  if (unpriced > 0 && unpriced >= (u.llm_calls ?? 0)) return `unpriced (${unpriced} model call${unpriced === 1 ? '' : 's'})`;
  return `$${u.cost_usd.toFixed(6)}${unpriced > 0 ? ` (+${unpriced} unpriced)` : ''}`;
}

/** A score check's range; a side at the largest safe integer is unbounded, not a 16-digit number. */
export function rangeText(range: readonly [number, number]): string {
  const [lo, hi] = range.map((v) => (Math.abs(v) >= Number.MAX_SAFE_INTEGER ? null : v));
  if (lo === null && hi === null) return 'unbounded';
  if (hi === null) return `≥ ${lo}, unbounded above`;
  if (lo === null) return `≤ ${hi}, unbounded below`;
  return `in [${lo}, ${hi}]`;
}
